package ops

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/sddmm"
)

// GATv2Scores builds GATv2's attention logits in one fused op: for every
// edge e = (u -> v) and head h,
//
//	s[e,h] = sum_f a[h,f] LeakyReLU(zl[u,h,f] + zr[v,h,f])
//
// with zl (NumSrc, H, F) the projected source features, zr (NumDst, H, F)
// the projected destination features and a (1, H, F) the attention vector;
// the result is (E, H, 1), ready for EdgeSoftmax. DGL and PyG form
// LeakyReLU(zl[u] + zr[v]) as an E x H x F tensor (and keep it, and its
// gradient, for the backward); here the sum is formed per edge in scratch
// and the backward recomputes it, so the op stores H numbers per edge.
// The backward is one pass per operand, each over the edges (grouped by
// source for zl, by destination for zr).
func GATv2Scores(g *graph.Graph, zl, zr, a *gorgonia.Node, slope float64) (*gorgonia.Node, error) {
	return gatv2Scores(g, zl, zr, a, nil, nil, slope)
}

// GATv2EdgeScores is GATv2Scores with edge features inside the LeakyReLU,
// as PyG's GATv2Conv with edge_dim:
//
//	s[e,h] = sum_f a[h,f] LeakyReLU(zl[u,h,f] + zr[v,h,f] + (ef[e] we)[h*F+f])
//
// with ef (E, D) the edge features and we (D, H*F) their projection. The
// projected edge features are computed per edge in scratch too, never
// stored: the forward costs D*H*F more multiply-adds per edge and no E x H x F
// memory.
func GATv2EdgeScores(g *graph.Graph, zl, zr, a, ef, we *gorgonia.Node, slope float64) (*gorgonia.Node, error) {
	if ef == nil || we == nil {
		return nil, fmt.Errorf("ops: GATv2EdgeScores needs edge features and their projection")
	}
	return gatv2Scores(g, zl, zr, a, ef, we, slope)
}

func gatv2Scores(g *graph.Graph, zl, zr, a, ef, we *gorgonia.Node, slope float64) (*gorgonia.Node, error) {
	if g == nil {
		return nil, fmt.Errorf("ops: GATv2Scores on a nil graph")
	}
	if math.IsNaN(slope) || math.IsInf(slope, 0) {
		return nil, fmt.Errorf("ops: GATv2Scores: slope %v is not finite", slope)
	}
	if g.NumEdges() == 0 {
		return nil, fmt.Errorf("ops: GATv2Scores on a graph with no edges (the result would be empty)")
	}
	fl, err := checkOperand(g, zl, U, "zl")
	if err != nil {
		return nil, err
	}
	fr, err := checkOperand(g, zr, V, "zr")
	if err != nil {
		return nil, err
	}
	if len(fl) != 2 {
		return nil, fmt.Errorf("ops: GATv2Scores: zl %q has shape %v, want (NumSrc, heads, features)", zl.Name(), zl.Shape())
	}
	h, f := fl[0], fl[1]
	if !tensor.Shape(fr).Eq(tensor.Shape(fl)) {
		return nil, fmt.Errorf("ops: GATv2Scores: zl %q has features %v but zr %q has %v", zl.Name(), fl, zr.Name(), fr)
	}
	if a == nil {
		return nil, fmt.Errorf("ops: GATv2Scores: the attention vector is nil")
	}
	if s := a.Shape(); !s.Eq(tensor.Shape{1, h, f}) {
		return nil, fmt.Errorf("ops: GATv2Scores: attention vector %q has shape %v, want (1, %d, %d)", a.Name(), s, h, f)
	}
	in := gorgonia.Nodes{zl, zr, a}
	op := &gatv2Op{g: g, h: h, f: f, slope: slope}
	if ef != nil {
		fe, err := checkOperand(g, ef, E, "edge features")
		if err != nil {
			return nil, err
		}
		if len(fe) != 1 {
			return nil, fmt.Errorf("ops: GATv2EdgeScores: edge features %q have shape %v, want (NumEdges, D)", ef.Name(), ef.Shape())
		}
		op.d = fe[0]
		if s := we.Shape(); !s.Eq(tensor.Shape{op.d, h * f}) {
			return nil, fmt.Errorf("ops: GATv2EdgeScores: edge projection %q has shape %v, want (%d, %d)", we.Name(), s, op.d, h*f)
		}
		in = append(in, ef, we)
	}
	for _, x := range in[1:] {
		if err := sameDtype(zl, x); err != nil {
			return nil, err
		}
	}
	return apply(op, in...)
}

// gatv2Op is GATv2Scores, taking (zl, zr, a) or (zl, zr, a, ef, we).
type gatv2Op struct {
	g     *graph.Graph
	h, f  int
	d     int // edge feature size, 0 without
	slope float64
}

func (op *gatv2Op) Name() string { return fmt.Sprintf("gatv2_scores(%g)", op.slope) }

func (op *gatv2Op) Key() string { return fmt.Sprintf("g=%d,%d,%d,%d", op.g.ID(), op.h, op.f, op.d) }

func (op *gatv2Op) Shapes() (in []tensor.Shape, out tensor.Shape) {
	in = []tensor.Shape{{op.g.NumSrc(), op.h, op.f}, {op.g.NumDst(), op.h, op.f}, {1, op.h, op.f}}
	if op.d > 0 {
		in = append(in, tensor.Shape{op.g.NumEdges(), op.d}, tensor.Shape{op.d, op.h * op.f})
	}
	return in, tensor.Shape{op.g.NumEdges(), op.h, 1}
}

func (op *gatv2Op) Do(vals []gorgonia.Value) (gorgonia.Value, error) { return op.DoInto(nil, vals) }

// DoInto is Do into dst (opkit.Into).
func (op *gatv2Op) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gatv2Do[float32](dst, op, -1, vals) },
		func() (gorgonia.Value, error) { return gatv2Do[float64](dst, op, -1, vals) })
}

// Grad gives every input its own backward op over the same inputs and the
// gradient of the scores.
func (op *gatv2Op) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	args := append(inputs[:len(inputs):len(inputs)], grad)
	grads := make(gorgonia.Nodes, len(inputs))
	for i := range inputs {
		d, err := apply(&gatv2GradOp{fwd: op, wrt: i}, args...)
		if err != nil {
			return nil, err
		}
		grads[i] = d
	}
	return grads, nil
}

// gatv2GradOp is the gradient of fwd with respect to its input wrt, taking
// fwd's inputs and the gradient of the scores.
type gatv2GradOp struct {
	fwd *gatv2Op
	wrt int
}

func (op *gatv2GradOp) Name() string { return fmt.Sprintf("d%s/d%d", op.fwd.Name(), op.wrt) }

func (op *gatv2GradOp) Key() string { return op.fwd.Key() }

func (op *gatv2GradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, scores := op.fwd.Shapes()
	return append(in, scores), in[op.wrt].Clone()
}

func (op *gatv2GradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) { return op.DoInto(nil, vals) }

// DoInto is Do into dst (opkit.Into).
func (op *gatv2GradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gatv2Do[float32](dst, op.fwd, op.wrt, vals) },
		func() (gorgonia.Value, error) { return gatv2Do[float64](dst, op.fwd, op.wrt, vals) })
}

// gatv2Do computes op's scores (wrt -1) or the gradient with respect to
// input wrt, whose values end with the gradient of the scores.
func gatv2Do[T num.Float](dst *tensor.Dense, op *gatv2Op, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	in := make([][]T, len(vals))
	for i, v := range vals {
		x, err := values.Data[T](v)
		if err != nil {
			return nil, err
		}
		in[i] = x
	}
	k := sddmm.GATv2[T]{G: op.g, Heads: op.h, Feat: op.f, Slope: T(op.slope), ZL: in[0], ZR: in[1], A: in[2], EDim: op.d}
	if op.d > 0 {
		k.EF, k.WE = in[3], in[4]
	}
	fin, shape := op.Shapes()
	if wrt >= 0 {
		shape = fin[wrt]
	}
	t, out := values.AllocInto[T](dst, shape)
	ds := in[len(in)-1]
	switch wrt {
	case -1:
		k.Scores(out)
	case 0:
		k.GradZL(out, ds)
	case 1:
		k.GradZR(out, ds)
	case 2:
		k.GradA(out, ds)
	case 3:
		k.GradEF(out, ds)
	case 4:
		k.GradWE(out, ds)
	}
	return t, nil
}

var (
	_ opkit.Forward = (*gatv2Op)(nil)
	_ opkit.Spec    = (*gatv2GradOp)(nil)
)
