package values

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
)

// AllocInto is Alloc into dst: when dst is a tensor of T's dtype and the
// given shape, not a view, it is zeroed and returned with its backing
// slice; otherwise (dst nil, say) a new tensor is. Ops that can write into
// a buffer they are given (opkit.Into) allocate their output with it.
func AllocInto[T num.Float](dst *tensor.Dense, shape []int) (*tensor.Dense, []T) {
	if dst == nil || dst.Dtype() != Dtype[T]() || dst.IsView() || !dst.Shape().Eq(tensor.Shape(shape)) {
		return Alloc[T](shape)
	}
	if dst.Shape().TotalSize() == 0 {
		return dst, []T{}
	}
	d, ok := dst.Data().([]T)
	if !ok {
		return Alloc[T](shape)
	}
	d = d[:dst.Shape().TotalSize()]
	clear(d)
	return dst, d
}

// OverInto is AllocInto for an op that writes every element of its
// output: dst, when it fits, is returned as it is, not zeroed.
func OverInto[T num.Float](dst *tensor.Dense, shape []int) (*tensor.Dense, []T) {
	if dst == nil || dst.Dtype() != Dtype[T]() || dst.IsView() || !dst.Shape().Eq(tensor.Shape(shape)) || dst.Shape().TotalSize() == 0 {
		return Alloc[T](shape)
	}
	d, ok := dst.Data().([]T)
	if !ok {
		return Alloc[T](shape)
	}
	return dst, d[:dst.Shape().TotalSize()]
}
