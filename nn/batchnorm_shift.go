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

// BatchNormShift is BatchNorm(x, gamma, eps) followed by AddBias with the
// shift beta (F) and, when relu is set, ReLU, computed by one op: its
// forward writes one (N, F) tensor where the three ops write two or three,
// with the same bits. Its gradients are those of the three ops, by the same
// backward ops: ReLU's gradient from the output, beta's as AddBias's
// column sums of it, and BatchNorm's dx and dgamma.
func BatchNormShift(x, gamma, beta *gorgonia.Node, eps float64, relu bool) (*gorgonia.Node, error) {
	if beta == nil {
		return nil, fmt.Errorf("nn: BatchNormShift of a nil shift")
	}
	bn, err := newBatchNormOp("BatchNormShift", x, gamma, eps)
	if err != nil {
		return nil, err
	}
	if !beta.Shape().Eq(tensor.Shape{bn.f}) {
		return nil, fmt.Errorf("nn: BatchNormShift: shift %q has shape %v, want (%d)", beta.Name(), beta.Shape(), bn.f)
	}
	if beta.Dtype() != x.Dtype() {
		return nil, fmt.Errorf("nn: BatchNormShift: shift %q is %v, %q %v", beta.Name(), beta.Dtype(), x.Name(), x.Dtype())
	}
	return apply(&batchNormShiftOp{bn: bn, relu: relu}, x, gamma, beta)
}

// batchNormShiftOp is bn, the shift and optionally ReLU.
type batchNormShiftOp struct {
	bn   *batchNormOp
	relu bool
}

func (op *batchNormShiftOp) Name() string {
	s := fmt.Sprintf("batch_norm_shift(%d,%d,eps=%g)", op.bn.n, op.bn.f, op.bn.eps)
	if op.relu {
		s += "_relu"
	}
	return s
}

func (op *batchNormShiftOp) Key() string { return "" }

func (op *batchNormShiftOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	x, v := tensor.Shape{op.bn.n, op.bn.f}, tensor.Shape{op.bn.f}
	return []tensor.Shape{x, v, v}, x
}

// DoInto computes the output, into dst when it fits (see values.OverInto).
func (op *batchNormShiftOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return batchNormShiftDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return batchNormShiftDo[float64](dst, op, vals) })
}

// Grad builds the backward ops of the three ops it fuses, on the same
// values: dz, ReLU's gradient (of the output, which is ReLU's output) or
// grad itself; beta's gradient, the column sums of dz; and BatchNorm's
// dx and dgamma of dz.
func (op *batchNormShiftOp) Grad(inputs gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	shape := tensor.Shape{op.bn.n, op.bn.f}
	dz := grad
	var sums *sumsCache
	if op.relu {
		// ReLU's gradient sums its columns for beta's as it writes them.
		sums = new(sumsCache)
		var err error
		if dz, err = apply(&activationGradOp{fwd: &activationOp{fn: relu, shape: shape}, sums: sums}, out, grad); err != nil {
			return nil, err
		}
	} else if bg, ok := specOf[*batchNormGradOp](grad); ok && bg.kind == bnDX {
		sums = bg.colSums()
	}
	dbeta, err := apply(&biasGradOp{fwd: &biasOp{shape: shape}, sums: sums}, dz)
	if err != nil {
		return nil, err
	}
	dx, err := apply(&batchNormGradOp{fwd: op.bn, kind: bnDX}, inputs[0], inputs[1], dz)
	if err != nil {
		return nil, err
	}
	dg, err := apply(&batchNormGradOp{fwd: op.bn, kind: bnDGamma}, inputs[0], dz)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dg, dbeta}, nil
}

// batchNormShiftDo computes, element by element, what batchNormDo,
// biasDo and activationDo compute one after the other, rounding to T
// where they store: y = c (x - mean) + 0 (BatchNorm adds a zero shift,
// which turns -0 into +0), then y + beta, then max(y, 0).
func batchNormShiftDo[T num.Float](dst *tensor.Dense, op *batchNormShiftOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	var in [3][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	x, gamma, beta := in[0], in[1], in[2]
	n, f := op.bn.n, op.bn.f
	mean, inv, _ := stats(op.bn.cache, x, n, f, op.bn.eps, true)
	m, a := make([]T, f), make([]T, f)
	for j := range f {
		m[j] = T(mean[j])
		a[j] = T(inv[j] * float64(gamma[j]))
	}
	t, y := values.OverInto[T](dst, tensor.Shape{n, f})
	parallel.For(n, 256, func(lo, hi int) {
		shiftRows(y[lo*f:hi*f], x[lo*f:hi*f], m, a, beta, f, op.relu)
	})
	return t, nil
}

var _ opkit.Forward = (*batchNormShiftOp)(nil)
