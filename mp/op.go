package mp

import (
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// The Gorgonia ops of this package (opkit Specs) move rows of dense tensors (gather,
// scatter-add, assemble, fill) or reduce messages by product. Like the ops
// of package ops they write a fresh tensor or the buffer a machine offers
// (opkit.Into), never write their inputs, keep
// no per-call state, and hash what makes them unique.

var lastIndexID atomic.Uint64

// newIndexID returns a process-unique ID for an index set. Ops that carry
// index slices hash this ID instead of the indices, which is O(1) and never
// merges ops over different index sets.
func newIndexID() uint64 { return lastIndexID.Add(1) }

// apply adds the op of s (an opkit Spec) to the expression graph of its
// inputs.
func apply(s opkit.Spec, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	return opkit.Apply("mp", s, inputs...)
}

// shapeOf returns the shape (lead..., feat...).
func shapeOf(lead, feat []int) tensor.Shape {
	s := make(tensor.Shape, 0, len(lead)+len(feat))
	return append(append(s, lead...), feat...)
}

// feature returns the feature shape of x: its shape without the row
// dimension.
func feature(x *gorgonia.Node) []int { return append([]int{}, x.Shape()[1:]...) }

// doUnary is the DoInto of an op of one input: the float32 or float64 kernel,
// by the dtype of vals, on the elements of vals[0] (as data reads them),
// writing into dst when it fits.
func doUnary[O any](op O, dst *tensor.Dense, vals []gorgonia.Value, f32 func(O, []float32, *tensor.Dense) (gorgonia.Value, error), f64 func(O, []float64, *tensor.Dense) (gorgonia.Value, error)) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return unaryDo(op, dst, vals[0], f32) },
		func() (gorgonia.Value, error) { return unaryDo(op, dst, vals[0], f64) })
}

// unaryDo runs kernel on the elements of v.
func unaryDo[T num.Float, O any](op O, dst *tensor.Dense, v gorgonia.Value, kernel func(O, []T, *tensor.Dense) (gorgonia.Value, error)) (gorgonia.Value, error) {
	x, err := data[T](v)
	if err != nil {
		return nil, err
	}
	return kernel(op, x, dst)
}

// data returns the elements of v as []T, like values.Data, and also accepts
// the scalar values Gorgonia produces for tensors of one element (its Slice
// returns a scalar when the result has a single element, whatever its
// shape).
func data[T num.Float](v gorgonia.Value) ([]T, error) {
	switch s := v.(type) {
	case *gorgonia.F64:
		if x, ok := any(float64(*s)).(T); ok {
			return []T{x}, nil
		}
	case *gorgonia.F32:
		if x, ok := any(float32(*s)).(T); ok {
			return []T{x}, nil
		}
	}
	return values.Data[T](v)
}
