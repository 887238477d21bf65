package link

import (
	"fmt"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// The losses of this package are fused Gorgonia ops from the scores of
// the positive pairs and of the negative pairs to a scalar. Each computes
// in float64 whatever the dtype, in a fixed order (so it does not depend on
// GOMAXPROCS), and its gradient is one backward op per input that
// recomputes what it needs from the scores: nothing per pair is kept
// between the forward and the backward.

// pairLoss is what a loss computes: loss returns the loss of the scores
// pos and neg, and grad writes into d the gradient of the loss with respect
// to the positive scores (wrt 0) or the negative ones (wrt 1). Both split
// their work over fixed chunks (lossChunk): the loss adds the chunks' sums
// in order, so neither depends on GOMAXPROCS.
type pairLoss interface {
	name() string
	loss(pos, neg []float64) float64
	grad(pos, neg []float64, wrt int, d []float64)
}

// lossChunk is the number of scores (or of positives, for the losses over
// each positive's negatives) per task.
const lossChunk = 1 << 13

// chunkSum returns the sum over i in [0, n) of the terms fn adds up for
// [lo, hi), over fixed chunks of lossChunk added in order.
func chunkSum(n int, fn func(lo, hi int) float64) float64 {
	var s [1]float64
	parallel.Sum(s[:], n, lossChunk, func(acc []float64, lo, hi int) { acc[0] += fn(lo, hi) })
	return s[0]
}

// lossIDs numbers the loss ops process-wide: the ID goes into the op's
// hash, so that two losses with different constants (weights, masks, k)
// never merge.
var lossIDs atomic.Uint64

// lossOp is a pairLoss of (pos, neg), each an (n, 1) or (n) column.
type lossOp struct {
	l          pairLoss
	pos, neg   tensor.Shape
	id         uint64
	npos, nneg int
}

// applyLoss checks pos and neg and adds the loss op to their graph.
func applyLoss(l pairLoss, pos, neg *gorgonia.Node) (*gorgonia.Node, error) {
	np, err := column(l.name(), "positive", pos)
	if err != nil {
		return nil, err
	}
	nn, err := column(l.name(), "negative", neg)
	if err != nil {
		return nil, err
	}
	if pos.Dtype() != neg.Dtype() {
		return nil, fmt.Errorf("link: %s: positive scores are %v, negative %v", l.name(), pos.Dtype(), neg.Dtype())
	}
	op := &lossOp{l: l, pos: pos.Shape().Clone(), neg: neg.Shape().Clone(), id: lossIDs.Add(1), npos: np, nneg: nn}
	return opkit.Apply("link", op, pos, neg)
}

// column checks that x is a float column of scores and returns its length.
func column(loss, what string, x *gorgonia.Node) (int, error) {
	if x == nil {
		return 0, fmt.Errorf("link: %s: the %s scores are nil", loss, what)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return 0, fmt.Errorf("link: %s: %s scores %q have dtype %v, want float32 or float64", loss, what, x.Name(), dt)
	}
	s := x.Shape()
	if x.IsScalar() || len(s) > 2 || len(s) == 2 && s[1] != 1 {
		return 0, fmt.Errorf("link: %s: %s scores %q have shape %v, want (n, 1) or (n)", loss, what, x.Name(), s)
	}
	if s[0] == 0 {
		return 0, fmt.Errorf("link: %s: no %s scores", loss, what)
	}
	return s[0], nil
}

func (op *lossOp) Name() string { return op.l.name() }

func (op *lossOp) Key() string { return fmt.Sprint(op.id) }

func (op *lossOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.pos, op.neg}, tensor.ScalarShape()
}

func (op *lossOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	pos, neg, err := op.read(vals)
	if err != nil {
		return nil, err
	}
	loss := op.l.loss(pos, neg)
	if vals[0].Dtype() == tensor.Float32 {
		return gorgonia.NewF32(float32(loss)), nil
	}
	return gorgonia.NewF64(loss), nil
}

// read returns the scores as float64s.
func (op *lossOp) read(vals []gorgonia.Value) (pos, neg []float64, err error) {
	if pos, err = floats(vals[0]); err != nil {
		return nil, nil, fmt.Errorf("link: %s: %w", op.Name(), err)
	}
	if neg, err = floats(vals[1]); err != nil {
		return nil, nil, fmt.Errorf("link: %s: %w", op.Name(), err)
	}
	return pos, neg, nil
}

// Grad gives each input a backward op of (pos, neg, dloss).
func (op *lossOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	out := make(gorgonia.Nodes, 2)
	for i := range out {
		d, err := opkit.Apply("link", &lossGradOp{fwd: op, wrt: i}, inputs[0], inputs[1], grad)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// lossGradOp is the gradient of fwd with respect to its input wrt (0:
// the positive scores, 1: the negative ones).
type lossGradOp struct {
	fwd *lossOp
	wrt int
}

func (op *lossGradOp) Name() string { return fmt.Sprintf("d%s/d%d", op.fwd.Name(), op.wrt) }

func (op *lossGradOp) Key() string { return op.fwd.Key() }

func (op *lossGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, _ := op.fwd.Shapes()
	return append(in, tensor.ScalarShape()), in[op.wrt].Clone()
}

func (op *lossGradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	pos, neg, err := op.fwd.read(vals)
	if err != nil {
		return nil, err
	}
	scale, err := values.Scalar(vals[2])
	if err != nil {
		return nil, fmt.Errorf("link: %s: %w", op.Name(), err)
	}
	d := make([]float64, len(pos))
	if op.wrt == 1 {
		d = make([]float64, len(neg))
	}
	op.fwd.l.grad(pos, neg, op.wrt, d)
	shape := op.fwd.pos
	if op.wrt == 1 {
		shape = op.fwd.neg
	}
	if vals[0].Dtype() == tensor.Float32 {
		t, out := values.Alloc[float32](shape)
		for i, x := range d {
			out[i] = float32(x * scale)
		}
		return t, nil
	}
	t, out := values.Alloc[float64](shape)
	for i, x := range d {
		out[i] = x * scale
	}
	return t, nil
}

// floats returns the elements of v as float64s (a copy).
func floats(v gorgonia.Value) ([]float64, error) {
	switch v.Dtype() {
	case tensor.Float32:
		x, err := values.Data[float32](v)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(x))
		for i, a := range x {
			out[i] = float64(a)
		}
		return out, nil
	case tensor.Float64:
		x, err := values.Data[float64](v)
		if err != nil {
			return nil, err
		}
		return append([]float64(nil), x...), nil
	}
	return nil, fmt.Errorf("scores of dtype %v", v.Dtype())
}

var (
	_ opkit.Forward = (*lossOp)(nil)
	_ opkit.Spec    = (*lossGradOp)(nil)
)
