package ops

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// The Gorgonia ops of this package are opkit Specs: a struct of static
// configuration (graph, shapes, constants) with a name, a hash key, shapes,
// Do and, for a forward op, Grad, which builds its gradient from separate
// backward ops (a backward op has no Grad).

// apply adds the op of s to the expression graph of its inputs.
func apply(s opkit.Spec, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	return opkit.Apply("ops", s, inputs...)
}

// unaryInto is the DoInto of an op of one input: its float32 or float64
// kernel, by the dtype of vals, on the elements of vals[0], into dst.
func unaryInto[O any](dst *tensor.Dense, op O, vals []gorgonia.Value,
	f32 func(*tensor.Dense, O, []float32) (gorgonia.Value, error),
	f64 func(*tensor.Dense, O, []float64) (gorgonia.Value, error)) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return unaryDo(dst, op, vals[0], f32) },
		func() (gorgonia.Value, error) { return unaryDo(dst, op, vals[0], f64) })
}

// unaryDo runs kernel on the elements of v.
func unaryDo[T num.Float, O any](dst *tensor.Dense, op O, v gorgonia.Value, kernel func(*tensor.Dense, O, []T) (gorgonia.Value, error)) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	return kernel(dst, op, x)
}
