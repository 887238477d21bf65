package mp

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/enum"
)

// CrossReducer combines the results that several relations computed for
// the same destination node type (DGL's cross_reducer of
// multi_update_all and HeteroGraphConv's aggregate).
type CrossReducer int

const (
	// CrossSum adds the relations' results.
	CrossSum CrossReducer = iota
	// CrossMean averages them.
	CrossMean
	// CrossMax takes their elementwise maximum.
	CrossMax
	// CrossMin takes their elementwise minimum.
	CrossMin
	// CrossStack stacks them on a new axis 1, in edge-type order: R results
	// of shape (N, F...) become one (N, R, F...).
	CrossStack
)

// String returns DGL's name of the reducer.
func (r CrossReducer) String() string {
	return enum.Name(r, "CrossReducer", "sum", "mean", "max", "min", "stack")
}

// CrossReduce combines xs, the results of several relations for one node
// type (all of one shape and dtype), with r. A single result is returned as
// it is, except by CrossStack, which still adds the axis. It returns an
// error when xs is empty, their shapes or dtypes differ, or r is unknown.
func CrossReduce(r CrossReducer, xs []*gorgonia.Node) (*gorgonia.Node, error) {
	if r < CrossSum || r > CrossStack {
		return nil, fmt.Errorf("mp: unknown cross reducer %d", int(r))
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("mp: cross reducer %s has no results to combine", r)
	}
	for i, x := range xs {
		if x == nil {
			return nil, fmt.Errorf("mp: cross reducer %s: result %d is nil", r, i)
		}
		if !x.Shape().Eq(xs[0].Shape()) || x.Dtype() != xs[0].Dtype() {
			return nil, fmt.Errorf("mp: cross reducer %s: result %d is %v %v but result 0 is %v %v", r, i, x.Shape(), x.Dtype(), xs[0].Shape(), xs[0].Dtype())
		}
	}
	if len(xs) == 1 && r != CrossStack {
		return xs[0], nil
	}
	switch r {
	case CrossSum, CrossMean:
		acc := xs[0]
		for _, x := range xs[1:] {
			var err error
			if acc, err = gorgonia.Add(acc, x); err != nil {
				return nil, fmt.Errorf("mp: cross reducer %s: %w", r, err)
			}
		}
		if r == CrossSum {
			return acc, nil
		}
		inv := gorgonia.NewConstant(scalarOf(acc.Dtype(), 1/float64(len(xs))))
		out, err := gorgonia.HadamardProd(acc, inv)
		if err != nil {
			return nil, fmt.Errorf("mp: cross reducer %s: %w", r, err)
		}
		return out, nil
	}
	stacked, err := stack(xs)
	if err != nil {
		return nil, fmt.Errorf("mp: cross reducer %s: %w", r, err)
	}
	switch r {
	case CrossMax:
		stacked, err = gorgonia.Max(stacked, 1)
	case CrossMin:
		// Gorgonia has no Min reduction: min(x) = -max(-x).
		if stacked, err = gorgonia.Neg(stacked); err == nil {
			if stacked, err = gorgonia.Max(stacked, 1); err == nil {
				stacked, err = gorgonia.Neg(stacked)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mp: cross reducer %s: %w", r, err)
	}
	return stacked, nil
}

// stack reshapes each (N, F...) result to (N, 1, F...) and concatenates
// them on axis 1.
func stack(xs []*gorgonia.Node) (*gorgonia.Node, error) {
	parts := make([]*gorgonia.Node, len(xs))
	for i, x := range xs {
		s := x.Shape()
		shape := append([]int{s[0], 1}, s[1:]...)
		r, err := gorgonia.Reshape(x, shape)
		if err != nil {
			return nil, err
		}
		parts[i] = r
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return gorgonia.Concat(1, parts...)
}

// scalarOf returns v as a scalar of dtype dt (float32 or float64).
func scalarOf(dt tensor.Dtype, v float64) any {
	if dt == tensor.Float32 {
		return float32(v)
	}
	return v
}
