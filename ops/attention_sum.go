package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/edgesoftmax"
)

// GATAttentionSum is GAT's attention and aggregation in one op that keeps
// nothing per edge:
//
//	UMulESum(g, z, GATAttention(g, el, er, slope))
//
// z (NumSrc, H, F) holds H heads of F projected features per source, el
// (NumSrc, H, 1) and er (NumDst, H, 1) the scores; the result is
// (NumDst, H, F). The attention is computed per destination into scratch
// and never stored, and the backward recomputes it (see
// edgesoftmax.AttentionSum): where GATAttention and UMulESum keep the
// (E, H) attention for the backward, which then makes two more (E, H)
// tensors (the attention's gradient and the scores'), this op's backward
// makes a pass over the in-edges of every destination (the gradient of er
// and three (NumDst, H) rows of statistics) and one over the out-edges of
// every source (the gradients of z and el), each recomputing the edges'
// attention from el, er and the statistics. It trades that recomputation
// (the scores, an exponential and an F-long dot product per edge and head,
// twice) for 3 x E x H numbers of memory.
//
// In float64 the values are those of the composition; in float32 they
// agree with it to rounding (the composition's vector kernels round
// differently), so the two are not interchangeable within one model's
// golden trace. The results are bit-identical for any GOMAXPROCS.
func GATAttentionSum(g *graph.Graph, z, el, er *gorgonia.Node, slope float64) (*gorgonia.Node, error) {
	fl, fr, err := checkScores("GATAttentionSum", g, slope, el, "el", er, "er")
	if err != nil {
		return nil, err
	}
	fz, err := checkOperand(g, z, U, "z")
	if err != nil {
		return nil, err
	}
	if len(fz) != 2 {
		return nil, fmt.Errorf("ops: GATAttentionSum: z %q has shape %v; want (%d, heads, features)", z.Name(), z.Shape(), g.NumSrc())
	}
	h, f := fz[0], fz[1]
	for _, s := range []struct {
		n    *gorgonia.Node
		feat []int
	}{{el, fl}, {er, fr}} {
		if len(s.feat) != 2 || s.feat[0] != h || s.feat[1] != 1 {
			return nil, fmt.Errorf("ops: GATAttentionSum: %q has shape %v; want (rows, %d, 1) for z's %d heads", s.n.Name(), s.n.Shape(), h, h)
		}
	}
	for _, x := range []*gorgonia.Node{el, er} {
		if err := sameDtype(z, x); err != nil {
			return nil, err
		}
	}
	return apply(&attnSumOp{g: g, slope: slope, heads: h, feat: f, back: new(opkit.Handover[gorgonia.Value, any])}, z, el, er)
}

// attnSumOp is GATAttentionSum, taking (z, el, er). Its backward is
// attnSumDstOp (the gradient of er), attnSumSrcOp (of z) and attnSumElOp
// (of el), which hand on their extra results through back.
type attnSumOp struct {
	g           *graph.Graph
	slope       float64
	heads, feat int
	// back hands the statistics from an attnSumDstOp run to the
	// attnSumSrcOp after it (keyed by the former's result, the latter's
	// last input), and the gradient of el from that to the attnSumElOp
	// (keyed by its result, the attnSumElOp's input).
	back *opkit.Handover[gorgonia.Value, any]
}

func (op *attnSumOp) Name() string { return fmt.Sprintf("gat_attention_sum(%g)", op.slope) }

func (op *attnSumOp) Key() string {
	return fmt.Sprintf("g=%d,%d,%d", op.g.ID(), op.heads, op.feat)
}

func (op *attnSumOp) zShape() tensor.Shape { return tensor.Shape{op.g.NumSrc(), op.heads, op.feat} }

func (op *attnSumOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return op.inShapes(), tensor.Shape{op.g.NumDst(), op.heads, op.feat}
}

func (op *attnSumOp) inShapes() []tensor.Shape {
	return []tensor.Shape{op.zShape(), {op.g.NumSrc(), op.heads, 1}, {op.g.NumDst(), op.heads, 1}}
}

// DoInto is Do into dst (opkit.Into).
func (op *attnSumOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attnSumDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return attnSumDo[float64](dst, op, vals) })
}

func attnSumDo[T num.Float](dst *tensor.Dense, op *attnSumOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	_, shape := op.Shapes()
	t, out := values.AllocInto[T](dst, shape)
	edgesoftmax.AttentionSum(out, op.g, in[0], in[1], in[2], op.slope, op.heads, op.feat)
	return t, nil
}

// Grad gives er its gradient from the pass over in-edges, z and el theirs
// from the pass over out-edges.
func (op *attnSumOp) Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	der, err := apply(&attnSumDstOp{fwd: op}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	dz, err := apply(&attnSumSrcOp{fwd: op}, inputs[0], inputs[1], inputs[2], grad, der)
	if err != nil {
		return nil, err
	}
	del, err := apply(&attnSumElOp{fwd: op}, dz)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dz, del, der}, nil
}

// attnSumDstOp takes (z, el, er, dout) and gives the gradient of er,
// handing the statistics of edgesoftmax.AttentionSumBackwardDst to the
// attnSumSrcOp that takes its result.
type attnSumDstOp struct{ fwd *attnSumOp }

func (op *attnSumDstOp) Name() string { return "d" + op.fwd.Name() + "/er" }

func (op *attnSumDstOp) Key() string { return op.fwd.Key() }

func (op *attnSumDstOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, out := op.fwd.Shapes()
	return append(in, out), in[2]
}

// DoInto is Do into dst (opkit.Into).
func (op *attnSumDstOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attnSumDstDo[float32](dst, op.fwd, vals) },
		func() (gorgonia.Value, error) { return attnSumDstDo[float64](dst, op.fwd, vals) })
}

func attnSumDstDo[T num.Float](dst *tensor.Dense, op *attnSumOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	t, der := values.AllocInto[T](dst, op.inShapes()[2])
	stats := parallel.Scratch[T](edgesoftmax.StatsLen(op.g, op.heads))
	edgesoftmax.AttentionSumBackwardDst(der, stats, op.g, in[0], in[1], in[2], op.slope, in[3], op.heads, op.feat)
	if err := op.back.Put(t, 0, stats); err != nil {
		return nil, fmt.Errorf("ops: %s: %w", op.Name(), err)
	}
	return t, nil
}

// attnSumSrcOp takes (z, el, er, dout, der), der the result of the
// attnSumDstOp whose statistics it takes, and gives the gradient of z,
// handing that of el to the attnSumElOp that takes its result.
type attnSumSrcOp struct{ fwd *attnSumOp }

func (op *attnSumSrcOp) Name() string { return "d" + op.fwd.Name() + "/z" }

func (op *attnSumSrcOp) Key() string { return op.fwd.Key() }

func (op *attnSumSrcOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, out := op.fwd.Shapes()
	return append(in, out, in[2]), in[0]
}

// DoInto is Do into dst (opkit.Into).
func (op *attnSumSrcOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attnSumSrcDo[float32](dst, op.fwd, vals) },
		func() (gorgonia.Value, error) { return attnSumSrcDo[float64](dst, op.fwd, vals) })
}

func attnSumSrcDo[T num.Float](dst *tensor.Dense, op *attnSumOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	s, ok := op.back.Take(vals[4], 0)
	if !ok {
		return nil, fmt.Errorf("ops: d%s/z: no statistics from this run's pass over in-edges", op.Name())
	}
	stats := s.([]T)
	t, dz := values.AllocInto[T](dst, op.zShape())
	del := parallel.Scratch[T](op.g.NumSrc() * op.heads)
	edgesoftmax.AttentionSumBackwardSrc(dz, del, op.g, in[0], in[1], in[2], op.slope, in[3], stats, op.heads, op.feat)
	parallel.PutScratch(stats)
	if err := op.back.Put(t, 1, del); err != nil {
		return nil, fmt.Errorf("ops: d%s/z: %w", op.Name(), err)
	}
	return t, nil
}

// attnSumElOp takes the result of an attnSumSrcOp and gives the gradient
// of el that it computed.
type attnSumElOp struct{ fwd *attnSumOp }

func (op *attnSumElOp) Name() string { return "d" + op.fwd.Name() + "/el" }

func (op *attnSumElOp) Key() string { return op.fwd.Key() }

func (op *attnSumElOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in := op.fwd.inShapes()
	return []tensor.Shape{in[0]}, in[1]
}

// DoInto is Do into dst (opkit.Into): the gradient is copied into dst.
func (op *attnSumElOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return attnSumElDo[float32](dst, op.fwd, vals) },
		func() (gorgonia.Value, error) { return attnSumElDo[float64](dst, op.fwd, vals) })
}

func attnSumElDo[T num.Float](dst *tensor.Dense, op *attnSumOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	d, ok := op.back.Take(vals[0], 1)
	if !ok {
		return nil, fmt.Errorf("ops: d%s/el: no gradient from this run's pass over out-edges", op.Name())
	}
	t, del := values.AllocInto[T](dst, op.inShapes()[1])
	copy(del, d.([]T))
	parallel.PutScratch(d.([]T))
	return t, nil
}

var (
	_ opkit.Forward = (*attnSumOp)(nil)
	_ opkit.Into    = (*attnSumOp)(nil)
	_ opkit.Into    = (*attnSumDstOp)(nil)
	_ opkit.Into    = (*attnSumSrcOp)(nil)
	_ opkit.Into    = (*attnSumElOp)(nil)
)
