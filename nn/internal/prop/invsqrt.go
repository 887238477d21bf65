package prop

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// invSqrt returns 1/sqrt(x) elementwise (+Inf at 0). Built with
// Gorgonia's InverseSqrt (v0.9.18), EdgeWeightNorm's gradient was wrong
// (TestEdgeWeightNorm: 9.69 for one weight where finite differences give
// -0.21), so it uses this op. Its gradient is -dy y^3 / 2, taken as 0 where
// dy is 0, so that the +Inf of a node without edges, whose gradient is 0,
// does not become NaN.
func invSqrt(x *gorgonia.Node) (*gorgonia.Node, error) {
	return gorgonia.ApplyOp(&invSqrtOp{shape: x.Shape().Clone()}, x)
}

// invSqrtOp is invSqrt; with grad set it is its backward, taking (y, dy).
type invSqrtOp struct {
	opkit.CPUOp
	shape tensor.Shape
	grad  bool
}

func (op *invSqrtOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *invSqrtOp) Type() hm.Type {
	r := len(op.shape)
	if op.grad {
		return opkit.FnType(r, r, r)
	}
	return opkit.FnType(r, r)
}

func (op *invSqrtOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	want := make([]tensor.Shape, op.Arity())
	for i := range want {
		want[i] = op.shape
	}
	if err := opkit.CheckInputs("prop", op.String(), want, in); err != nil {
		return nil, err
	}
	return op.shape.Clone(), nil
}

func (op *invSqrtOp) String() string {
	if op.grad {
		return "dinv_sqrt"
	}
	return "inv_sqrt"
}

func (op *invSqrtOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%v%v", op, op.shape) }

func (op *invSqrtOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *invSqrtOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return invSqrtDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return invSqrtDo[float64](op, vals) })
}

func invSqrtDo[T num.Float](op *invSqrtOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("prop: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, out := values.Alloc[T](op.shape)
	if !op.grad {
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

func (op *invSqrtOp) DiffWRT(n int) []bool { return []bool{!op.grad, false}[:n] }

func (op *invSqrtOp) SymDiff(_ gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("prop: %v is a backward op and is not differentiable", op)
	}
	d, err := gorgonia.ApplyOp(&invSqrtOp{shape: op.shape, grad: true}, output, grad)
	return gorgonia.Nodes{d}, err
}

var _ gorgonia.SDOp = (*invSqrtOp)(nil)
