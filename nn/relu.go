package nn

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// ReLU applies max(x, 0) elementwise, as gorgonia.Rectify, in one pass
// forward and one backward: the gradient is dy where the output is
// positive and 0 elsewhere (PyTorch's convention at 0; Gorgonia's
// Rectify passes dy at 0 and builds its gradient from a comparison and a
// product, two passes and an extra tensor).
func ReLU(x *gorgonia.Node) (*gorgonia.Node, error) {
	if x == nil {
		return nil, fmt.Errorf("nn: ReLU of a nil node")
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn: ReLU of dtype %v, want float32 or float64", dt)
	}
	return gorgonia.ApplyOp(&reluOp{}, x)
}

// reluOp is ReLU; with grad set it is its backward, taking (y, dy).
type reluOp struct {
	opkit.CPUOp
	grad bool
}

func (op *reluOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *reluOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	if op.grad {
		return hm.NewFnType(a, a, a)
	}
	return hm.NewFnType(a, a)
}

func (op *reluOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("nn: %v takes %d inputs, got %d", op, op.Arity(), len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("nn: %v input has no shape", op)
	}
	return s.Clone(), nil
}

func (op *reluOp) String() string {
	if op.grad {
		return "drelu"
	}
	return "relu"
}

func (op *reluOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }

func (op *reluOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *reluOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return reluDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return reluDo[float64](op, vals) })
}

func reluDo[T num.Float](op *reluOp, vals []gorgonia.Value) (gorgonia.Value, error) {
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
				y[lo+i] = max(v, 0)
			}
		})
		return t, nil
	}
	dy, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	if len(dy) != len(x) {
		return nil, fmt.Errorf("nn: %v: output has %d elements, its gradient %d", op, len(x), len(dy))
	}
	parallel.For(len(x), 1<<14, func(lo, hi int) {
		for i, v := range x[lo:hi] {
			if v > 0 {
				y[lo+i] = dy[lo+i]
			}
		}
	})
	return t, nil
}

func (op *reluOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	d[0] = !op.grad
	return d
}

func (op *reluOp) SymDiff(_ gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("nn: the ReLU gradient is not differentiable")
	}
	d, err := gorgonia.ApplyOp(&reluOp{grad: true}, out, grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ gorgonia.Op   = (*reluOp)(nil)
	_ gorgonia.SDOp = (*reluOp)(nil)
)
