package nn

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// Combine builds the linear combination sum_i coeffs[i] * xs[i] of tensors
// of one shape and dtype, elementwise, in one pass (APPNP's
// (1-α) Â h + α h0, Chebyshev's recurrence). Gorgonia's scalar products
// and sums would take one op, one tensor and, in the backward, one more of
// each per term. The gradient of xs[i] is coeffs[i] times the incoming
// gradient, another Combine of one term.
func Combine(coeffs []float64, xs ...*gorgonia.Node) (*gorgonia.Node, error) {
	if len(xs) == 0 || len(coeffs) != len(xs) {
		return nil, fmt.Errorf("nn: Combine of %d tensors with %d coefficients", len(xs), len(coeffs))
	}
	for i, c := range coeffs {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("nn: Combine: coefficient %d is %v", i, c)
		}
	}
	for i, x := range xs {
		if x == nil {
			return nil, fmt.Errorf("nn: Combine: tensor %d is nil", i)
		}
		if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
			return nil, fmt.Errorf("nn: Combine: %q has dtype %v, want float32 or float64", x.Name(), dt)
		}
		if x.Dtype() != xs[0].Dtype() || !x.Shape().Eq(xs[0].Shape()) {
			return nil, fmt.Errorf("nn: Combine: %q is %v %v but %q is %v %v", x.Name(), x.Dtype(), x.Shape(), xs[0].Name(), xs[0].Dtype(), xs[0].Shape())
		}
	}
	return apply(&combineOp{coeffs: append([]float64(nil), coeffs...), shape: xs[0].Shape().Clone()}, xs...)
}

// combineOp is Combine.
type combineOp struct {
	coeffs []float64
	shape  tensor.Shape
}

func (op *combineOp) Name() string { return fmt.Sprintf("combine%v", op.coeffs) }

func (op *combineOp) Key() string { return fmt.Sprint(op.shape) }

func (op *combineOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in := make([]tensor.Shape, len(op.coeffs))
	for i := range in {
		in[i] = op.shape
	}
	return in, op.shape
}

// DoInto computes the output into dst (opkit.Into).
func (op *combineOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return combineDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return combineDo[float64](dst, op, vals) })
}

func combineDo[T num.Float](dst *tensor.Dense, op *combineOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	xs, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	t, out := values.AllocInto[T](dst, op.shape)
	parallel.For(len(out), 1<<14, func(lo, hi int) {
		o := out[lo:hi]
		c := T(op.coeffs[0])
		for j, x := range xs[0][lo:hi] {
			o[j] = c * x
		}
		for i := 1; i < len(xs); i++ {
			c := T(op.coeffs[i])
			for j, x := range xs[i][lo:hi] {
				o[j] += c * x
			}
		}
	})
	return t, nil
}

// Grad gives xs[i] a Combine of one term, coeffs[i] times the gradient.
func (op *combineOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	grads := make(gorgonia.Nodes, len(op.coeffs))
	for i, c := range op.coeffs {
		d, err := apply(&combineOp{coeffs: []float64{c}, shape: op.shape}, grad)
		if err != nil {
			return nil, err
		}
		grads[i] = d
	}
	return grads, nil
}

var _ opkit.Forward = (*combineOp)(nil)
