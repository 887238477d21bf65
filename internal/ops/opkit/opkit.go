package opkit

import (
	"fmt"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CPUOp, embedded in an op, gives it the methods every gnn op shares:
// outputs are fresh tensors, inputs are never overwritten, and nothing calls
// out of Go.
type CPUOp struct{}

// ReturnsPtr reports false: outputs are fresh tensors.
func (CPUOp) ReturnsPtr() bool { return false }

// CallsExtern reports false: the op runs in Go (and Go assembly).
func (CPUOp) CallsExtern() bool { return false }

// OverwritesInput reports -1: no input is overwritten.
func (CPUOp) OverwritesInput() int { return -1 }

// FnType returns a new function type from tensors of the given ranks to a
// tensor of rank out, all of one dtype (rank 0: a scalar). It must be rebuilt on every call:
// Gorgonia returns function types to a shared pool after use.
func FnType(out int, in ...int) hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(in)+1)
	for _, r := range in {
		ts = append(ts, tensorType(r, a))
	}
	ts = append(ts, tensorType(out, a))
	return hm.NewFnType(ts...)
}

// tensorType returns the type of a tensor of rank r of a, or a itself, a
// scalar, for rank 0.
func tensorType(r int, a hm.TypeVariable) hm.Type {
	if r == 0 {
		return a
	}
	return gorgonia.TensorType{Dims: r, Of: a}
}

// CheckInputs verifies at graph-building time that the inputs of the op
// called name have the shapes it was built for; pkg prefixes the error.
func CheckInputs(pkg, name string, want []tensor.Shape, got []gorgonia.DimSizer) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %s takes %d inputs, got %d", pkg, name, len(want), len(got))
	}
	for i, ds := range got {
		s, ok := ds.(tensor.Shape)
		if !ok {
			return fmt.Errorf("%s: %s input %d has no shape", pkg, name, i)
		}
		if !s.Eq(want[i]) {
			return fmt.Errorf("%s: %s input %d has shape %v, want %v", pkg, name, i, s, want[i])
		}
	}
	return nil
}
