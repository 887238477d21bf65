package ops

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
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

// edgeSoftmaxOp is the forward edge softmax; with grad set it is the fused
// backward, taking (y, dy).
type edgeSoftmaxOp struct {
	cpuOp
	g     *graph.Graph
	norm  Norm
	shape tensor.Shape
	grad  bool
}

func (op *edgeSoftmaxOp) Arity() int {
	if op.grad {
		return 2
	}
	return 1
}

func (op *edgeSoftmaxOp) Type() hm.Type {
	r := len(op.shape)
	if op.grad {
		return opkit.FnType(r, r, r)
	}
	return opkit.FnType(r, r)
}

func (op *edgeSoftmaxOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	want := []tensor.Shape{op.shape}
	if op.grad {
		want = append(want, op.shape)
	}
	if err := opkit.CheckInputs("ops", op.String(), want, in); err != nil {
		return nil, err
	}
	return op.shape.Clone(), nil
}

func (op *edgeSoftmaxOp) String() string {
	s := fmt.Sprintf("edge_softmax_by_%v", op.norm)
	if op.grad {
		return "d" + s
	}
	return s
}

func (op *edgeSoftmaxOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "%v{g=%d,%v}", op, op.g.ID(), op.shape)
}

func (op *edgeSoftmaxOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *edgeSoftmaxOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return edgeSoftmaxDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return edgeSoftmaxDo[float64](op, vals) })
}

func edgeSoftmaxDo[T num.Float](op *edgeSoftmaxOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("ops: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	width := bcast.Prod(op.shape[1:])
	t, out := values.Alloc[T](op.shape)
	if !op.grad {
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

func (op *edgeSoftmaxOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = !op.grad
	}
	return d
}

func (op *edgeSoftmaxOp) SymDiff(_ gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, noSecondOrder(op.String())
	}
	back := *op
	back.grad = true
	d, err := apply(&back, output, grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ gorgonia.Op   = (*edgeSoftmaxOp)(nil)
	_ gorgonia.SDOp = (*edgeSoftmaxOp)(nil)
)
