package ops

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// cpuOp holds the methods every gnn op shares: outputs are fresh tensors,
// inputs are never overwritten, and nothing calls out of Go.
type cpuOp struct{}

func (cpuOp) ReturnsPtr() bool     { return false }
func (cpuOp) CallsExtern() bool    { return false }
func (cpuOp) OverwritesInput() int { return -1 }

// fnType returns a new function type from tensors of the given ranks to a
// tensor of rank out, all of one dtype. It must be rebuilt on every call:
// Gorgonia returns function types to a shared pool after use.
func fnType(out int, in ...int) hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(in)+1)
	for _, r := range in {
		ts = append(ts, gorgonia.TensorType{Dims: r, Of: a})
	}
	ts = append(ts, gorgonia.TensorType{Dims: out, Of: a})
	return hm.NewFnType(ts...)
}

// hashOf returns the FNV-32a hash of what op writes with WriteHash.
func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// checkInputs verifies at graph-building time that the inputs have the shapes
// an op was built for.
func checkInputs(name string, want []tensor.Shape, got []gorgonia.DimSizer) error {
	if len(got) != len(want) {
		return fmt.Errorf("ops: %s takes %d inputs, got %d", name, len(want), len(got))
	}
	for i, ds := range got {
		s, ok := ds.(tensor.Shape)
		if !ok {
			return fmt.Errorf("ops: %s input %d has no shape", name, i)
		}
		if !s.Eq(want[i]) {
			return fmt.Errorf("ops: %s input %d has shape %v, want %v", name, i, s, want[i])
		}
	}
	return nil
}

// noSecondOrder is the SymDiff of backward-only ops.
func noSecondOrder(name string) error {
	return fmt.Errorf("ops: %s is a backward op and is not differentiable", name)
}
