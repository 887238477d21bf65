package nn

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// ELU applies the exponential linear unit, x for x > 0 and exp(x)-1
// otherwise (alpha 1, as the GAT paper uses), elementwise. Gorgonia has none.
func ELU(x *gorgonia.Node) (*gorgonia.Node, error) { return activate(elu, x) }

// ReLU applies max(x, 0) elementwise, as gorgonia.Rectify, in one pass
// forward and one backward: the gradient is dy where the output is
// positive and 0 elsewhere (PyTorch's convention at 0; Gorgonia's
// Rectify passes dy at 0 and builds its gradient from a comparison and a
// product, two passes and an extra tensor).
func ReLU(x *gorgonia.Node) (*gorgonia.Node, error) { return activate(relu, x) }

// activation is an elementwise function with an op of its own.
type activation uint8

const (
	elu activation = iota
	relu
)

func (a activation) String() string { return [...]string{"elu", "relu"}[a] }

func activate(a activation, x *gorgonia.Node) (*gorgonia.Node, error) {
	if x == nil {
		return nil, fmt.Errorf("nn: %v of a nil node", a)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn: %v of dtype %v, want float32 or float64", a, dt)
	}
	return gorgonia.ApplyOp(&activationOp{fn: a}, x)
}

// activationOp applies fn; with grad set it is its backward, taking (x, dy)
// for ELU and (y, dy) for ReLU, whose gradient needs only the output's sign.
type activationOp struct {
	opkit.CPUOp
	fn   activation
	grad bool
}

func (op *activationOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *activationOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	if op.grad {
		return hm.NewFnType(a, a, a)
	}
	return hm.NewFnType(a, a)
}

func (op *activationOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("nn: %v takes %d inputs, got %d", op, op.Arity(), len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("nn: %v input has no shape", op)
	}
	return s.Clone(), nil
}

func (op *activationOp) String() string {
	if op.grad {
		return "d" + op.fn.String()
	}
	return op.fn.String()
}

func (op *activationOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }

func (op *activationOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *activationOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return activationDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return activationDo[float64](op, vals) })
}

func activationDo[T num.Float](op *activationOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("nn: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, y := values.Alloc[T](vals[0].Shape())
	if !op.grad {
		parallel.For(len(x), 1<<14, func(lo, hi int) {
			for i, v := range x[lo:hi] {
				switch {
				case op.fn == relu:
					y[lo+i] = max(v, 0)
				case v > 0:
					y[lo+i] = v
				default:
					y[lo+i] = T(math.Expm1(float64(v)))
				}
			}
		})
		return t, nil
	}
	dy, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	if len(dy) != len(x) {
		return nil, fmt.Errorf("nn: %v: %d values, %d gradients", op, len(x), len(dy))
	}
	parallel.For(len(x), 1<<14, func(lo, hi int) {
		for i, v := range x[lo:hi] {
			switch {
			case v > 0:
				y[lo+i] = dy[lo+i]
			case op.fn == elu:
				y[lo+i] = dy[lo+i] * T(math.Exp(float64(v)))
			}
		}
	})
	return t, nil
}

func (op *activationOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	d[0] = !op.grad
	return d
}

func (op *activationOp) SymDiff(inputs gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("nn: the %v gradient is not differentiable", op.fn)
	}
	at := inputs[0]
	if op.fn == relu {
		at = out
	}
	d, err := gorgonia.ApplyOp(&activationOp{fn: op.fn, grad: true}, at, grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ gorgonia.Op   = (*activationOp)(nil)
	_ gorgonia.SDOp = (*activationOp)(nil)
)
