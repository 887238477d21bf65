package nn

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/values"
)

// overInto returns dst and its backing slice, as they are (not zeroed),
// when dst is a tensor of T's dtype and the given shape that is not a
// view, else a new zeroed tensor: the output of an op that writes every
// element of it, into a buffer a machine that keeps buffers from one run
// to the next hands the op's DoInto method (the opkit.Into of branch
// m-vm's nn/vm; values.OverInto there).
func overInto[T num.Float](dst *tensor.Dense, shape []int) (*tensor.Dense, []T) {
	if dst == nil || dst.Dtype() != values.Dtype[T]() || dst.IsView() || !dst.Shape().Eq(tensor.Shape(shape)) || dst.Shape().TotalSize() == 0 {
		return values.Alloc[T](shape)
	}
	d, ok := dst.Data().([]T)
	if !ok {
		return values.Alloc[T](shape)
	}
	return dst, d[:dst.Shape().TotalSize()]
}
