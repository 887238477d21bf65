package ops

import (
	"fmt"

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

// EdgeSoftmax builds DGL's edge softmax: for every column of the per-edge
// scores (one per head, say), the softmax over the edges that share a
// destination (ByDst) or a source (BySrc). logits has one row per edge and
// any feature shape, and the result has the same shape. The computation is
// numerically stable and its backward is one fused pass:
// dS = Y * (dY - sum over the group of Y * dY).
func EdgeSoftmax(g *graph.Graph, logits *gorgonia.Node, norm Norm) (*gorgonia.Node, error) {
	if g == nil {
		return nil, fmt.Errorf("ops: EdgeSoftmax on a nil graph")
	}
	if norm != ByDst && norm != BySrc {
		return nil, fmt.Errorf("ops: EdgeSoftmax: unknown normalisation %v", norm)
	}
	if g.NumEdges() == 0 {
		return nil, emptyResult("EdgeSoftmax", "edges")
	}
	feat, err := checkOperand(g, logits, E, "logits")
	if err != nil {
		return nil, err
	}
	return apply(&edgeSoftmaxOp{g: g, norm: norm, shape: withRows(g.NumEdges(), feat)}, logits)
}

// edgeSoftmaxOp is the forward edge softmax.
type edgeSoftmaxOp struct {
	g     *graph.Graph
	norm  Norm
	shape tensor.Shape
}

func (op *edgeSoftmaxOp) Name() string { return fmt.Sprintf("edge_softmax_by_%v", op.norm) }

func (op *edgeSoftmaxOp) Key() string { return fmt.Sprintf("g=%d,%v", op.g.ID(), op.shape) }

func (op *edgeSoftmaxOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, op.shape
}

// DoInto is Do into dst (opkit.Into).
func (op *edgeSoftmaxOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return edgeSoftmaxDo[float32](dst, op, vals, false) },
		func() (gorgonia.Value, error) { return edgeSoftmaxDo[float64](dst, op, vals, false) })
}

// DeviceDo normalises the edge scores on the device, as Do. It runs when an input is on the device
// (see package internal/ops/device).
func (op *edgeSoftmaxOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, out, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return out, b.EdgeSoftmax(out, op.g, op.norm, in[0], bcast.Prod(op.shape[1:]))
}

// Grad is the fused backward, one op of (y, dy).
func (op *edgeSoftmaxOp) Grad(_ gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&edgeSoftmaxGradOp{fwd: op}, output, grad)
	return gorgonia.Nodes{d}, err
}

// edgeSoftmaxGradOp is the backward of fwd, taking (y, dy).
type edgeSoftmaxGradOp struct{ fwd *edgeSoftmaxOp }

func (op *edgeSoftmaxGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *edgeSoftmaxGradOp) Key() string { return op.fwd.Key() }

func (op *edgeSoftmaxGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := op.fwd.shape
	return []tensor.Shape{s, s}, s
}

// DoInto is Do into dst (opkit.Into).
func (op *edgeSoftmaxGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return edgeSoftmaxDo[float32](dst, op.fwd, vals, true) },
		func() (gorgonia.Value, error) { return edgeSoftmaxDo[float64](dst, op.fwd, vals, true) })
}

// DeviceDo computes the softmax's gradient on the device, as Do. It runs when an input is on the device
// (see package internal/ops/device).
func (op *edgeSoftmaxGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	f := op.fwd
	in, ds, err := device.Prepare(b, vals, f.shape.Clone())
	if err != nil {
		return nil, err
	}
	return ds, b.EdgeSoftmaxBackward(ds, f.g, f.norm, in[0], in[1], bcast.Prod(f.shape[1:]))
}

// edgeSoftmaxDo runs op's forward on (x), or with grad its backward on
// (y, dy).
func edgeSoftmaxDo[T num.Float](dst *tensor.Dense, op *edgeSoftmaxOp, vals []gorgonia.Value, grad bool) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	width := bcast.Prod(op.shape[1:])
	t, out := values.AllocInto[T](dst, op.shape)
	if !grad {
		edgesoftmax.Forward(out, op.g, op.norm, x, width)
		return t, nil
	}
	dy, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	edgesoftmax.Backward(out, op.g, op.norm, x, dy, width)
	return t, nil
}

var (
	_ opkit.Forward = (*edgeSoftmaxOp)(nil)
	_ device.Spec   = (*edgeSoftmaxOp)(nil)
	_ opkit.Spec    = (*edgeSoftmaxGradOp)(nil)
	_ device.Spec   = (*edgeSoftmaxGradOp)(nil)
)
