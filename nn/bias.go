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

// AddBias builds x + b with b added to every row of x: x is (N, ...) and b
// has the shape of one row, x.Shape()[1:]. It is gorgonia.BroadcastAdd(x,
// b, nil, []byte{0}) without the N copies of b that BroadcastAdd makes:
// the gradient of x is the incoming gradient itself, and that of b its
// column sums, added over fixed chunks of rows in a fixed order, so they do
// not depend on GOMAXPROCS.
func AddBias(x, b *gorgonia.Node) (*gorgonia.Node, error) {
	if x == nil || b == nil {
		return nil, fmt.Errorf("nn: AddBias of a nil node")
	}
	xs, bs := x.Shape(), b.Shape()
	if len(xs) < 2 || !bs.Eq(xs[1:]) {
		return nil, fmt.Errorf("nn: AddBias: bias %q has shape %v, want %v, a row of %q (%v)", b.Name(), bs, rowShape(xs), x.Name(), xs)
	}
	if x.Dtype() != b.Dtype() || (x.Dtype() != tensor.Float32 && x.Dtype() != tensor.Float64) {
		return nil, fmt.Errorf("nn: AddBias: dtypes %v (%q) and %v (%q); want both float32 or both float64", x.Dtype(), x.Name(), b.Dtype(), b.Name())
	}
	return gorgonia.ApplyOp(&biasOp{shape: xs.Clone()}, x, b)
}

// rowShape is s without its first dimension, for messages.
func rowShape(s tensor.Shape) tensor.Shape {
	if len(s) < 2 {
		return tensor.Shape{}
	}
	return s[1:]
}

// biasOp adds a row to every row of x; with grad set it is the bias
// gradient, the column sums of its one input dy.
type biasOp struct {
	opkit.CPUOp
	shape tensor.Shape // of x
	grad  bool
}

func (op *biasOp) Arity() int {
	if op.grad {
		return 1
	}
	return 2
}

func (op *biasOp) Type() hm.Type {
	if op.grad {
		return opkit.FnType(len(op.shape)-1, len(op.shape))
	}
	return opkit.FnType(len(op.shape), len(op.shape), len(op.shape)-1)
}

func (op *biasOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if op.grad {
		if err := opkit.CheckInputs("nn", op.String(), []tensor.Shape{op.shape}, in); err != nil {
			return nil, err
		}
		return op.shape[1:].Clone(), nil
	}
	if err := opkit.CheckInputs("nn", op.String(), []tensor.Shape{op.shape, op.shape[1:]}, in); err != nil {
		return nil, err
	}
	return op.shape.Clone(), nil
}

func (op *biasOp) String() string {
	if op.grad {
		return fmt.Sprintf("dbias%v", op.shape)
	}
	return fmt.Sprintf("add_bias%v", op.shape)
}

func (op *biasOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }

func (op *biasOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *biasOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return biasDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return biasDo[float64](op, vals) })
}

func biasDo[T num.Float](op *biasOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("nn: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	n, w := op.shape[0], op.shape[1:].TotalSize()
	if op.grad {
		t, db := values.Alloc[T](op.shape[1:])
		parallel.Sum(db, n, 1024, func(p []T, lo, hi int) {
			for r := lo; r < hi; r++ {
				for j, v := range x[r*w : (r+1)*w] {
					p[j] += v
				}
			}
		})
		return t, nil
	}
	b, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	t, y := values.Alloc[T](op.shape)
	parallel.For(n, 1024, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			yr, xr := y[r*w:(r+1)*w], x[r*w:(r+1)*w]
			for j, v := range b {
				yr[j] = xr[j] + v
			}
		}
	})
	return t, nil
}

func (op *biasOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = !op.grad
	}
	return d
}

func (op *biasOp) SymDiff(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("nn: the bias gradient is not differentiable")
	}
	db, err := gorgonia.ApplyOp(&biasOp{shape: op.shape, grad: true}, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{grad, db}, nil
}

var (
	_ gorgonia.Op   = (*biasOp)(nil)
	_ gorgonia.SDOp = (*biasOp)(nil)
)
