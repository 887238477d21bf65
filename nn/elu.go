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
func ELU(x *gorgonia.Node) (*gorgonia.Node, error) {
	if x == nil {
		return nil, fmt.Errorf("nn: ELU of a nil node")
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn: ELU of dtype %v, want float32 or float64", dt)
	}
	return gorgonia.ApplyOp(&eluOp{}, x)
}

// eluOp is ELU; with grad set it is its backward, taking (x, dy).
type eluOp struct {
	opkit.CPUOp
	grad bool
}

func (op *eluOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *eluOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	if op.grad {
		return hm.NewFnType(a, a, a)
	}
	return hm.NewFnType(a, a)
}

func (op *eluOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("nn: %v takes %d inputs, got %d", op, op.Arity(), len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("nn: %v input has no shape", op)
	}
	return s.Clone(), nil
}

func (op *eluOp) String() string {
	if op.grad {
		return "delu"
	}
	return "elu"
}

func (op *eluOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }

func (op *eluOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *eluOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return eluDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return eluDo[float64](op, vals) })
}

func eluDo[T num.Float](op *eluOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, y := values.Alloc[T](vals[0].Shape())
	if !op.grad {
		parallel.For(len(x), 1<<14, func(lo, hi int) {
			for i, v := range x[lo:hi] {
				if v > 0 {
					y[lo+i] = v
				} else {
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
	parallel.For(len(x), 1<<14, func(lo, hi int) {
		for i, v := range x[lo:hi] {
			if v > 0 {
				y[lo+i] = dy[lo+i]
			} else {
				y[lo+i] = dy[lo+i] * T(math.Exp(float64(v)))
			}
		}
	})
	return t, nil
}

func (op *eluOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	d[0] = !op.grad
	return d
}

func (op *eluOp) SymDiff(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("nn: the ELU gradient is not differentiable")
	}
	d, err := gorgonia.ApplyOp(&eluOp{grad: true}, inputs[0], grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ gorgonia.Op   = (*eluOp)(nil)
	_ gorgonia.SDOp = (*eluOp)(nil)
)
