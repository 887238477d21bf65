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

// MeanHeads returns the mean over the heads of x (N, heads*F), head-major
// in each row: (N, F), as attention layers average their heads. It
// replaces gorgonia.Mean, whose backward pass (a HadamardDiv that
// Gorgonia's TapeMachine lets overwrite its first input) writes over the
// mean's own output, so that after a run that also computes gradients the
// layer's output read 1/H of its value.
func MeanHeads(x *gorgonia.Node, heads int) (*gorgonia.Node, error) {
	if x == nil {
		return nil, fmt.Errorf("nn: mean over heads of a nil node")
	}
	s := x.Shape()
	if len(s) != 2 || heads < 1 || s[1]%heads != 0 {
		return nil, fmt.Errorf("nn: mean over %d heads of %q, shape %v: want (N, heads*F)", heads, x.Name(), s)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("nn: mean over heads of %q: dtype %v, want float32 or float64", x.Name(), dt)
	}
	return meanHeads(x, s[0], heads, s[1]/heads)
}

// meanHeads is MeanHeads of x (n, h*f).
func meanHeads(x *gorgonia.Node, n, h, f int) (*gorgonia.Node, error) {
	return apply(&meanHeadsOp{n: n, h: h, f: f}, x)
}

// meanHeadsOp computes y[n,j] = sum_k x[n,k*F+j] / H.
type meanHeadsOp struct {
	n, h, f int
}

func (op *meanHeadsOp) Name() string { return "mean_heads" }
func (op *meanHeadsOp) Key() string  { return fmt.Sprintf("%d,%d,%d", op.n, op.h, op.f) }

func (op *meanHeadsOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.n, op.h * op.f}}, tensor.Shape{op.n, op.f}
}

// DoInto computes the output into dst (opkit.Into).
func (op *meanHeadsOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return meanHeadsDo[float32](dst, op, vals[0]) },
		func() (gorgonia.Value, error) { return meanHeadsDo[float64](dst, op, vals[0]) })
}

// DeviceDo averages the heads on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *meanHeadsOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, tensor.Shape{op.n, op.f})
	if err != nil {
		return nil, err
	}
	return y, b.MeanHeads(y, in[0], op.n, op.h, op.f, false)
}

func meanHeadsDo[T num.Float](dst *tensor.Dense, op *meanHeadsOp, v gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	t, out := values.AllocInto[T](dst, tensor.Shape{op.n, op.f})
	h, f := op.h, op.f
	parallel.For(op.n, 1024, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			row, o := x[n*h*f:(n+1)*h*f], out[n*f:(n+1)*f]
			copy(o, row[:f])
			for k := 1; k < h; k++ {
				for j, v := range row[k*f : (k+1)*f] {
					o[j] += v
				}
			}
			for j := range o {
				o[j] /= T(h)
			}
		}
	})
	return t, nil
}

// Grad spreads dy / H over the heads.
func (op *meanHeadsOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dx, err := apply(&meanHeadsGradOp{n: op.n, h: op.h, f: op.f}, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx}, nil
}

// meanHeadsGradOp is meanHeadsOp's backward: dx[n,k*F+j] = dy[n,j] / H.
type meanHeadsGradOp struct {
	n, h, f int
}

func (op *meanHeadsGradOp) Name() string { return "dmean_heads" }
func (op *meanHeadsGradOp) Key() string  { return fmt.Sprintf("%d,%d,%d", op.n, op.h, op.f) }

func (op *meanHeadsGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.n, op.f}}, tensor.Shape{op.n, op.h * op.f}
}

// DeviceDo spreads the gradient over the heads on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *meanHeadsGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, dx, err := device.Prepare(b, vals, tensor.Shape{op.n, op.h * op.f})
	if err != nil {
		return nil, err
	}
	return dx, b.MeanHeads(in[0], dx, op.n, op.h, op.f, true)
}

// DoInto computes the output into dst (opkit.Into).
func (op *meanHeadsGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return meanHeadsGradDo[float32](dst, op, vals[0]) },
		func() (gorgonia.Value, error) { return meanHeadsGradDo[float64](dst, op, vals[0]) })
}

func meanHeadsGradDo[T num.Float](dst *tensor.Dense, op *meanHeadsGradOp, v gorgonia.Value) (gorgonia.Value, error) {
	dy, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	t, out := values.AllocInto[T](dst, tensor.Shape{op.n, op.h * op.f})
	h, f := op.h, op.f
	parallel.For(op.n, 1024, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			d, row := dy[n*f:(n+1)*f], out[n*h*f:(n+1)*h*f]
			for k := range h {
				for j, v := range d {
					row[k*f+j] = v / T(h)
				}
			}
		}
	})
	return t, nil
}

var (
	_ opkit.Forward = (*meanHeadsOp)(nil)
	_ device.Spec   = (*meanHeadsOp)(nil)
	_ opkit.Spec    = (*meanHeadsGradOp)(nil)
	_ device.Spec   = (*meanHeadsGradOp)(nil)
)
