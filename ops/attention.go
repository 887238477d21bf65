package ops

import (
	"fmt"
	"math"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/edgesoftmax"
)

// GATAttention builds GAT's attention in one fused op:
//
//	EdgeSoftmax(g, LeakyReLU(UAddV(g, el, er), slope), ByDst)
//
// el has one row per source node and er one per destination node, of the
// same feature shape ((N, H, 1) for H heads); the result has one row per
// edge and that feature shape. The per-edge scores are computed per
// destination into scratch and never stored, so the forward keeps one
// tensor per edge (the attention) where the composed ops keep three. The
// backward is one pass over the in-edges of every destination giving the
// gradient of the scores before the LeakyReLU, summed onto el (over
// out-edges) and er (over in-edges) by copy_e SpMMs.
func GATAttention(g *graph.Graph, el, er *gorgonia.Node, slope float64) (*gorgonia.Node, error) {
	fl, fr, err := checkScores("GATAttention", g, slope, el, "el", er, "er")
	if err != nil {
		return nil, err
	}
	if !slices.Equal(fl, fr) {
		return nil, fmt.Errorf("ops: GATAttention: el %q has features %v but er %q has %v", el.Name(), fl, er.Name(), fr)
	}
	if err := sameDtype(el, er); err != nil {
		return nil, err
	}
	return apply(&attentionOp{g: g, slope: slope, feat: fl}, el, er)
}

// checkScores checks what the attention ops of name share: a graph with
// edges, a finite LeakyReLU slope, a source operand l (one row per
// source) and a destination operand r (one row per destination); it
// returns their feature shapes.
func checkScores(name string, g *graph.Graph, slope float64, l *gorgonia.Node, lname string, r *gorgonia.Node, rname string) (fl, fr []int, err error) {
	if g == nil {
		return nil, nil, fmt.Errorf("ops: %s on a nil graph", name)
	}
	if math.IsNaN(slope) || math.IsInf(slope, 0) {
		return nil, nil, fmt.Errorf("ops: %s: slope %v is not finite", name, slope)
	}
	if g.NumEdges() == 0 {
		return nil, nil, emptyResult(name, "edges")
	}
	if fl, err = checkOperand(g, l, U, lname); err != nil {
		return nil, nil, err
	}
	if fr, err = checkOperand(g, r, V, rname); err != nil {
		return nil, nil, err
	}
	return fl, fr, nil
}

// attentionOp is GATAttention's forward, taking (el, er).
type attentionOp struct {
	g     *graph.Graph
	slope float64
	feat  []int
}

func (op *attentionOp) Name() string { return fmt.Sprintf("gat_attention(%g)", op.slope) }

func (op *attentionOp) Key() string { return fmt.Sprintf("g=%d,%v", op.g.ID(), op.feat) }

func (op *attentionOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{withRows(op.g.NumSrc(), op.feat), withRows(op.g.NumDst(), op.feat)}, withRows(op.g.NumEdges(), op.feat)
}

// DoInto is Do into dst (opkit.Into).
func (op *attentionOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attentionDo[float32](dst, op, vals, false) },
		func() (gorgonia.Value, error) { return attentionDo[float64](dst, op, vals, false) })
}

// DeviceDo computes the fused attention scores on the device, as Do. It runs when an input is on the device
// (see package internal/ops/device).
func (op *attentionOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	_, shape := op.Shapes()
	in, out, err := device.Prepare(b, vals, shape)
	if err != nil {
		return nil, err
	}
	return out, b.Attention(out, op.g, in[0], in[1], op.slope, bcast.Prod(op.feat))
}

// Grad gives el the sum of the score gradients over each source's
// out-edges (a copy_e SpMM on the reversed graph) and er their sum over
// each destination's in-edges.
func (op *attentionOp) Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	ds, err := apply(&attentionGradOp{fwd: op}, inputs[0], inputs[1], output, grad)
	if err != nil {
		return nil, err
	}
	dl, err := CopyESum(op.g.Reverse(), ds)
	if err != nil {
		return nil, err
	}
	dr, err := CopyESum(op.g, ds)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dl, dr}, nil
}

// attentionGradOp is the backward of fwd, taking (el, er, y, dy) and giving
// the gradient of the scores before the LeakyReLU, one row per edge.
type attentionGradOp struct{ fwd *attentionOp }

func (op *attentionGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *attentionGradOp) Key() string { return op.fwd.Key() }

func (op *attentionGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, e := op.fwd.Shapes()
	return append(in, e, e), e
}

// DoInto is Do into dst (opkit.Into).
func (op *attentionGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attentionDo[float32](dst, op.fwd, vals, true) },
		func() (gorgonia.Value, error) { return attentionDo[float64](dst, op.fwd, vals, true) })
}

// DeviceDo computes the fused attention's gradients on the device, as Do. It runs when an input is on the device
// (see package internal/ops/device).
func (op *attentionGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	_, shape := op.Shapes()
	in, ds, err := device.Prepare(b, vals, shape)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	return ds, b.AttentionBackward(ds, f.g, in[0], in[1], f.slope, in[2], in[3], bcast.Prod(f.feat))
}

// attentionDo runs op's forward on (el, er), or with grad its backward on
// (el, er, y, dy).
func attentionDo[T num.Float](dst *tensor.Dense, op *attentionOp, vals []gorgonia.Value, grad bool) (gorgonia.Value, error) {
	in := make([][]T, len(vals))
	for i, v := range vals {
		x, err := values.Data[T](v)
		if err != nil {
			return nil, err
		}
		in[i] = x
	}
	_, shape := op.Shapes()
	width := bcast.Prod(op.feat)
	t, out := values.AllocInto[T](dst, shape)
	if grad {
		edgesoftmax.AttentionBackward(out, op.g, in[0], in[1], op.slope, in[2], in[3], width)
	} else {
		edgesoftmax.Attention(out, op.g, in[0], in[1], op.slope, width)
	}
	return t, nil
}

var (
	_ opkit.Forward = (*attentionOp)(nil)
	_ device.Spec   = (*attentionOp)(nil)
	_ opkit.Spec    = (*attentionGradOp)(nil)
	_ device.Spec   = (*attentionGradOp)(nil)
)
