package ops

import (
	"fmt"
	"hash"
	"math"
	"slices"

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
	if g == nil {
		return nil, fmt.Errorf("ops: GATAttention on a nil graph")
	}
	if math.IsNaN(slope) || math.IsInf(slope, 0) {
		return nil, fmt.Errorf("ops: GATAttention: slope %v is not finite", slope)
	}
	if g.NumEdges() == 0 {
		return nil, emptyResult("GATAttention", "edges")
	}
	fl, err := checkOperand(g, el, U, "el")
	if err != nil {
		return nil, err
	}
	fr, err := checkOperand(g, er, V, "er")
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

// attentionOp is GATAttention's forward, taking (el, er); with grad set it
// is the backward, taking (el, er, y, dy) and giving the gradient of the
// scores before the LeakyReLU, one row per edge.
type attentionOp struct {
	cpuOp
	g     *graph.Graph
	slope float64
	feat  []int
	grad  bool
}

// shapes returns the shapes of the inputs and of the output.
func (op *attentionOp) shapes() (in []tensor.Shape, out tensor.Shape) {
	e := withRows(op.g.NumEdges(), op.feat)
	in = []tensor.Shape{withRows(op.g.NumSrc(), op.feat), withRows(op.g.NumDst(), op.feat)}
	if op.grad {
		in = append(in, e, e)
	}
	return in, e
}

func (op *attentionOp) Arity() int {
	if op.grad {
		return 4
	}
	return 2
}

func (op *attentionOp) Type() hm.Type {
	r := len(op.feat) + 1
	if op.grad {
		return opkit.FnType(r, r, r, r, r)
	}
	return opkit.FnType(r, r, r)
}

func (op *attentionOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	want, out := op.shapes()
	if err := opkit.CheckInputs("ops", op.String(), want, in); err != nil {
		return nil, err
	}
	return out, nil
}

func (op *attentionOp) String() string {
	s := fmt.Sprintf("gat_attention(%g)", op.slope)
	if op.grad {
		return "d" + s
	}
	return s
}

func (op *attentionOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "%v{g=%d,%v}", op, op.g.ID(), op.feat)
}

func (op *attentionOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *attentionOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attentionDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return attentionDo[float64](op, vals) })
}

func attentionDo[T num.Float](op *attentionOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("ops: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	in := make([][]T, len(vals))
	for i, v := range vals {
		x, err := values.Data[T](v)
		if err != nil {
			return nil, err
		}
		in[i] = x
	}
	_, shape := op.shapes()
	width := bcast.Prod(op.feat)
	t, out := values.Alloc[T](shape)
	if op.grad {
		edgesoftmax.AttentionBackward(out, op.g, in[0], in[1], op.slope, in[2], in[3], width)
	} else {
		edgesoftmax.Attention(out, op.g, in[0], in[1], op.slope, width)
	}
	return t, nil
}

func (op *attentionOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = !op.grad
	}
	return d
}

// SymDiff gives el the sum of the score gradients over each source's
// out-edges (a copy_e SpMM on the reversed graph) and er their sum over
// each destination's in-edges.
func (op *attentionOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, noSecondOrder(op.String())
	}
	back := *op
	back.grad = true
	ds, err := apply(&back, inputs[0], inputs[1], output, grad)
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

var (
	_ gorgonia.Op   = (*attentionOp)(nil)
	_ gorgonia.SDOp = (*attentionOp)(nil)
)
