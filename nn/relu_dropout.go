package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// ReLUDropout is Dropout(ReLU(x), p, seed, mode) as one op: the same values
// and gradients, bit for bit, with one tensor kept forward and one backward
// instead of two each. The gradient needs only the output: it is dy/(1-p)
// where the output is positive and 0 elsewhere while mode is training (dy
// where it is positive in evaluation), so neither the pre-activation nor
// the mask is kept. With p = 0 it is ReLU. It returns an error for the
// arguments Dropout refuses.
func ReLUDropout(x *gorgonia.Node, p float64, seed uint64, mode *Mode) (*gorgonia.Node, error) {
	if err := checkDropout(x, p, mode); err != nil {
		return nil, err
	}
	if p == 0 {
		return ReLU(x)
	}
	return apply(&reluDropoutOp{maskOf(x, p, seed, mode)}, x)
}

// reluDropoutOp is ReLUDropout.
type reluDropoutOp struct{ dropMask }

func (op *reluDropoutOp) Name() string { return fmt.Sprintf("relu_dropout(p=%g)", op.p) }

// DoInto computes the output into dst (opkit.Into).
func (op *reluDropoutOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return reluDropoutDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return reluDropoutDo[float64](dst, op, vals) })
}

func reluDropoutDo[T num.Float](dst *tensor.Dense, op *reluDropoutOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, y := values.AllocInto[T](dst, op.shape)
	applyMask(y, x, op.p, op.seed, op.mode.Step(), op.mode.Training(), true)
	return t, nil
}

// Grad is one op of (y, dy).
func (op *reluDropoutOp) Grad(_ gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&reluDropoutGradOp{fwd: op}, out, grad)
	return gorgonia.Nodes{d}, err
}

// reluDropoutGradOp is the backward of fwd, of (y, dy).
type reluDropoutGradOp struct{ fwd *reluDropoutOp }

func (op *reluDropoutGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *reluDropoutGradOp) Key() string { return op.fwd.Key() }

func (op *reluDropoutGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := op.fwd.shape
	return []tensor.Shape{s, s}, s
}

// DoInto computes the output into dst (opkit.Into).
func (op *reluDropoutGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return reluDropoutGradDo[float32](dst, op.fwd, vals) },
		func() (gorgonia.Value, error) { return reluDropoutGradDo[float64](dst, op.fwd, vals) })
}

func reluDropoutGradDo[T num.Float](dst *tensor.Dense, op *reluDropoutOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	var in [2][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	y, dy := in[0], in[1]
	if len(dy) != len(y) {
		return nil, fmt.Errorf("nn: d%s: %d values, %d gradients", op.Name(), len(y), len(dy))
	}
	scale := T(1)
	training := op.mode.Training()
	if training {
		scale = T(1 / (1 - op.p))
	}
	t, dx := values.AllocInto[T](dst, op.shape)
	parallel.For(len(y), 1<<14, func(lo, hi int) {
		for i, v := range y[lo:hi] {
			if v > 0 {
				// As Dropout's gradient then ReLU's: dy times the scale
				// where kept, then passed where the output is positive.
				if training {
					dx[lo+i] = dy[lo+i] * scale
				} else {
					dx[lo+i] = dy[lo+i]
				}
			}
		}
	})
	return t, nil
}

var (
	_ opkit.Forward = (*reluDropoutOp)(nil)
	_ opkit.Spec    = (*reluDropoutGradOp)(nil)
)
