package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
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
	return apply(&biasOp{shape: xs.Clone()}, x, b)
}

// rowShape is s without its first dimension, for messages.
func rowShape(s tensor.Shape) tensor.Shape {
	if len(s) < 2 {
		return tensor.Shape{}
	}
	return s[1:]
}

// biasOp adds a row to every row of x.
type biasOp struct {
	shape tensor.Shape // of x
}

func (op *biasOp) Name() string { return fmt.Sprintf("add_bias%v", op.shape) }

func (op *biasOp) Key() string { return "" }

func (op *biasOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape, op.shape[1:]}, op.shape
}

// DoInto computes the output into dst (opkit.Into).
func (op *biasOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return biasDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return biasDo[float64](dst, op, vals) })
}

// DeviceDo adds the bias to every row on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *biasOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.AddRows(y, in[0], in[1], op.shape[0], op.shape[1:].TotalSize())
}

func biasDo[T num.Float](dst *tensor.Dense, op *biasOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	var in [2][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	x, b := in[0], in[1]
	n, w := op.shape[0], op.shape[1:].TotalSize()
	t, y := values.OverInto[T](dst, op.shape) // every element written
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

// Grad passes dy to x and gives the bias the column sums of dy.
func (op *biasOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	db, err := apply(&biasGradOp{fwd: op}, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{grad, db}, nil
}

// biasGradOp is the bias gradient of fwd: the column sums of its one input
// dy, taken from sums when the op that wrote dy summed them (sumsCache).
type biasGradOp struct {
	fwd  *biasOp
	sums *sumsCache // may be nil
}

func (op *biasGradOp) Name() string { return fmt.Sprintf("dbias%v", op.fwd.shape) }

func (op *biasGradOp) Key() string { return "" }

func (op *biasGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.fwd.shape}, op.fwd.shape[1:]
}

// DoInto computes the output into dst (opkit.Into).
func (op *biasGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return biasGradDo[float32](dst, op.fwd.shape, op.sums, vals) },
		func() (gorgonia.Value, error) { return biasGradDo[float64](dst, op.fwd.shape, op.sums, vals) })
}

// DeviceDo sums the output gradient's rows on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *biasGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	s := op.fwd.shape
	in, db, err := device.Prepare(b, vals, s[1:].Clone())
	if err != nil {
		return nil, err
	}
	return db, b.SumRows(db, in[0], s[0], s[1:].TotalSize())
}

func biasGradDo[T num.Float](dst *tensor.Dense, shape tensor.Shape, sums *sumsCache, vals []gorgonia.Value) (gorgonia.Value, error) {
	dy, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	n, w := shape[0], shape[1:].TotalSize()
	if s, ok := takeSums[[]T](sums, dy); ok && len(s) == w {
		t, db := values.OverInto[T](dst, shape[1:])
		copy(db, s)
		return t, nil
	}
	t, db := values.AllocInto[T](dst, shape[1:])
	parallel.Sum(db, n, 1024, func(p []T, lo, hi int) {
		addColSumsT(p, dy[lo*w:hi*w], w)
	})
	return t, nil
}

var (
	_ opkit.Forward = (*biasOp)(nil)
	_ device.Spec   = (*biasOp)(nil)
	_ opkit.Spec    = (*biasGradOp)(nil)
	_ device.Spec   = (*biasGradOp)(nil)
)
