package nn

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
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
	return apply(&activationOp{fn: a, shape: x.Shape().Clone()}, x)
}

// activationOp applies fn to a tensor of shape shape.
type activationOp struct {
	fn    activation
	shape tensor.Shape
}

func (op *activationOp) Name() string { return op.fn.String() }

func (op *activationOp) Key() string { return fmt.Sprint(op.shape) }

func (op *activationOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, op.shape
}

// device returns the backend's code of a.
func (a activation) device() device.Activation {
	if a == relu {
		return device.ReLU
	}
	return device.ELU
}

// DeviceDo applies the activation on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *activationOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.Activate(op.fn.device(), y, in[0])
}

// DoInto computes the output into dst (opkit.Into).
func (op *activationOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return activationDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return activationDo[float64](dst, op, vals) })
}

func activationDo[T num.Float](dst *tensor.Dense, op *activationOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, y := values.OverInto[T](dst, op.shape) // every element written
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

// Grad is one op of (x, dy) for ELU and of (y, dy) for ReLU, whose
// gradient needs only the output's sign.
func (op *activationOp) Grad(inputs gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	at := inputs[0]
	if op.fn == relu {
		at = out
	}
	d, err := apply(&activationGradOp{fwd: op}, at, grad)
	return gorgonia.Nodes{d}, err
}

// activationGradOp is the backward of fwd, taking (x, dy) for ELU and
// (y, dy) for ReLU. A ReLU gradient with sums also sums the columns of
// what it writes, for the bias gradient that reads it (sumsCache).
type activationGradOp struct {
	fwd  *activationOp
	sums *sumsCache // may be nil
}

func (op *activationGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *activationGradOp) Key() string { return op.fwd.Key() }

func (op *activationGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := op.fwd.shape
	return []tensor.Shape{s, s}, s
}

// DeviceDo computes the activation's gradient on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *activationGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, dx, err := device.Prepare(b, vals, op.fwd.shape.Clone())
	if err != nil {
		return nil, err
	}
	return dx, b.ActivateGrad(op.fwd.fn.device(), dx, in[0], in[1])
}

// DoInto computes the output into dst (opkit.Into).
func (op *activationGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return activationGradDo[float32](dst, op.fwd, op.sums, vals) },
		func() (gorgonia.Value, error) { return activationGradDo[float64](dst, op.fwd, op.sums, vals) })
}

func activationGradDo[T num.Float](dst *tensor.Dense, op *activationOp, sums *sumsCache, vals []gorgonia.Value) (gorgonia.Value, error) {
	var in [2][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	x, dy := in[0], in[1]
	if len(dy) != len(x) {
		return nil, fmt.Errorf("nn: d%v: %d values, %d gradients", op.fn, len(x), len(dy))
	}
	if op.fn == relu && sums != nil && len(op.shape) == 2 && op.shape[1] > 0 {
		// The bias gradient's column sums (biasGradDo's blocks of rows),
		// block by block as it is written.
		t, y := values.OverInto[T](dst, op.shape) // every element written
		n, w := op.shape[0], op.shape[1]
		db := make([]T, w)
		parallel.Sum(db, n, 1024, func(p []T, lo, hi int) {
			reluGrad(y[lo*w:hi*w], x[lo*w:hi*w], dy[lo*w:hi*w])
			addColSumsT(p, y[lo*w:hi*w], w)
		})
		keepSums(sums, y, db)
		return t, nil
	}
	if op.fn == relu {
		t, y := values.OverInto[T](dst, op.shape) // every element written
		parallel.For(len(x), 1<<14, func(lo, hi int) {
			reluGrad(y[lo:hi], x[lo:hi], dy[lo:hi])
		})
		return t, nil
	}
	t, y := values.AllocInto[T](dst, op.shape)
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

var (
	_ opkit.Forward = (*activationOp)(nil)
	_ device.Spec   = (*activationOp)(nil)
	_ opkit.Spec    = (*activationGradOp)(nil)
	_ device.Spec   = (*activationGradOp)(nil)
)
