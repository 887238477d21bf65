package prop

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// invSqrt returns 1/sqrt(x) elementwise (+Inf at 0). Built with
// Gorgonia's InverseSqrt (v0.9.18), EdgeWeightNorm's gradient was wrong
// (TestEdgeWeightNorm: 9.69 for one weight where finite differences give
// -0.21), so it uses this op. Its gradient is -dy y^3 / 2, taken as 0 where
// dy is 0, so that the +Inf of a node without edges, whose gradient is 0,
// does not become NaN.
func invSqrt(x *gorgonia.Node) (*gorgonia.Node, error) {
	return opkit.Apply("prop", &invSqrtOp{shape: x.Shape().Clone()}, x)
}

// invSqrtOp is invSqrt.
type invSqrtOp struct {
	shape tensor.Shape
}

func (op *invSqrtOp) Name() string { return "inv_sqrt" }

func (op *invSqrtOp) Key() string { return fmt.Sprint(op.shape) }

func (op *invSqrtOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, op.shape
}

func (op *invSqrtOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return invSqrtDo[float32](op.shape, vals, false) },
		func() (gorgonia.Value, error) { return invSqrtDo[float64](op.shape, vals, false) })
}

// Grad is one op of (y, dy).
func (op *invSqrtOp) Grad(_ gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := opkit.Apply("prop", &invSqrtGradOp{fwd: op}, output, grad)
	return gorgonia.Nodes{d}, err
}

// invSqrtGradOp is the backward of fwd, taking (y, dy).
type invSqrtGradOp struct{ fwd *invSqrtOp }

func (op *invSqrtGradOp) Name() string { return "dinv_sqrt" }

func (op *invSqrtGradOp) Key() string { return op.fwd.Key() }

func (op *invSqrtGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := op.fwd.shape
	return []tensor.Shape{s, s}, s
}

func (op *invSqrtGradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return invSqrtDo[float32](op.fwd.shape, vals, true) },
		func() (gorgonia.Value, error) { return invSqrtDo[float64](op.fwd.shape, vals, true) })
}

// invSqrtDo computes 1/sqrt(x) of (x), or with grad the gradient from
// (y, dy).
func invSqrtDo[T num.Float](shape tensor.Shape, vals []gorgonia.Value, grad bool) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, out := values.Alloc[T](shape)
	if !grad {
		for i, v := range x {
			out[i] = T(1 / math.Sqrt(float64(v)))
		}
		return t, nil
	}
	dy, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	for i, y := range x {
		if dy[i] != 0 {
			out[i] = -dy[i] * y * y * y / 2
		}
	}
	return t, nil
}

var (
	_ opkit.Forward = (*invSqrtOp)(nil)
	_ opkit.Spec    = (*invSqrtGradOp)(nil)
)
