package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
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
// The forward walks the in-edges of every destination; the backward is one
// op of two passes, one over the in-edges of every destination for the
// gradients of zr and a (and of the projection of the edge features) that
// also records which elements of every edge's sum are positive (one bit
// each), one over the out-edges of every source for zl's, which needs
// those bits and the gradient of the scores but no row of zr. In float32 with heads of
// 1, 2, 4 or a multiple of 8 features (and H*F a multiple of 8) they run
// in AVX2 assembly where the machine has it.
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
	fl, fr, err := checkScores("GATv2Scores", g, slope, zl, "zl", zr, "zr")
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

// DoInto is Do into dst (opkit.Into).
func (op *gatv2Op) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.do(dst, -1, vals)
}

// do is gatv2Do (scorer).
func (op *gatv2Op) do(dst *tensor.Dense, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gatv2Do[float32](dst, op, wrt, vals) },
		func() (gorgonia.Value, error) { return gatv2Do[float64](dst, op, wrt, vals) })
}

// Grad computes the gradients of zl, zr, a and we together with one
// backward op (sddmm.GATv2.GradAll), whose packed result gatv2PartOp
// splits. The edge features' gradient, one row per edge, has its own op (a
// pass over the destinations): copied out of a packed result, it would be
// allocated twice.
func (op *gatv2Op) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	args := append(inputs[:len(inputs):len(inputs)], grad)
	grads := make(gorgonia.Nodes, len(inputs))
	packed, err := apply(&gatv2AllGradOp{fwd: op}, args...)
	if err != nil {
		return nil, err
	}
	for i := range inputs {
		if i == 3 {
			grads[i], err = apply(&gradOp{fwd: op, wrt: i, extra: 1}, args...)
		} else {
			grads[i], err = apply(&gatv2PartOp{fwd: op, wrt: i}, packed)
		}
		if err != nil {
			return nil, err
		}
	}
	return grads, nil
}

// parts returns the offsets in the packed gradient of the gradients of
// inputs 0 to 4 (zl, zr, a, and we; input 3, ef, is not packed and has no
// elements there), and its length, at index 5. Without edge features we
// has no elements either.
func (op *gatv2Op) parts() [6]int {
	in, _ := op.Shapes()
	var off [6]int
	for i := range 5 {
		off[i+1] = off[i]
		if i < len(in) && i != 3 {
			off[i+1] += in[i].TotalSize()
		}
	}
	return off
}

// gatv2AllGradOp computes the gradients of zl, zr, a and we in one op (a
// pass over the destinations, then one over the sources), taking fwd's
// inputs and the gradient of the scores and giving them packed in one
// vector (as parts says).
type gatv2AllGradOp struct{ fwd *gatv2Op }

func (op *gatv2AllGradOp) Name() string { return "d" + op.fwd.Name() + "/all" }

func (op *gatv2AllGradOp) Key() string { return op.fwd.Key() }

func (op *gatv2AllGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, scores := op.fwd.Shapes()
	return append(in, scores), tensor.Shape{op.fwd.parts()[5]}
}

// DoInto is Do into dst (opkit.Into).
func (op *gatv2AllGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.fwd.do(dst, gatv2All, vals)
}

// gatv2PartOp is the gradient of input wrt (0, 1, 2 or 4) of fwd, copied
// out of the packed result of gatv2AllGradOp.
type gatv2PartOp struct {
	fwd *gatv2Op
	wrt int
}

func (op *gatv2PartOp) Name() string { return fmt.Sprintf("d%s/d%d", op.fwd.Name(), op.wrt) }

func (op *gatv2PartOp) Key() string { return op.fwd.Key() }

func (op *gatv2PartOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, _ := op.fwd.Shapes()
	return []tensor.Shape{{op.fwd.parts()[5]}}, in[op.wrt].Clone()
}

// DoInto is Do into dst (opkit.Into).
func (op *gatv2PartOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gatv2Part[float32](dst, op, vals[0]) },
		func() (gorgonia.Value, error) { return gatv2Part[float64](dst, op, vals[0]) })
}

// gatv2Part copies op's part of the packed gradient v.
func gatv2Part[T num.Float](dst *tensor.Dense, op *gatv2PartOp, v gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	off := op.fwd.parts()
	_, shape := op.Shapes()
	t, out := values.AllocInto[T](dst, shape)
	copy(out, x[off[op.wrt]:off[op.wrt+1]])
	return t, nil
}

// gatv2All is the wrt of gatv2Do that computes gatv2AllGradOp's packed
// gradients.
const gatv2All = 5

// gatv2Do computes op's scores (wrt -1), the gradient with respect to
// input wrt, or with gatv2All the packed gradients of gatv2AllGradOp, whose
// values end with the gradient of the scores.
func gatv2Do[T num.Float](dst *tensor.Dense, op *gatv2Op, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	k := sddmm.GATv2[T]{G: op.g, Heads: op.h, Feat: op.f, Slope: T(op.slope), ZL: in[0], ZR: in[1], A: in[2], EDim: op.d}
	if op.d > 0 {
		k.EF, k.WE = in[3], in[4]
	}
	fin, shape := op.Shapes()
	switch {
	case wrt == gatv2All:
		shape = tensor.Shape{op.parts()[5]}
	case wrt >= 0:
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
	case gatv2All:
		off := op.parts()
		part := func(i int) []T {
			if off[i] == off[i+1] {
				return nil
			}
			return out[off[i]:off[i+1]]
		}
		k.GradAll(part(0), part(1), part(2), part(3), part(4), ds)
	}
	return t, nil
}

var (
	_ scorer     = (*gatv2Op)(nil)
	_ opkit.Spec = (*gatv2AllGradOp)(nil)
	_ opkit.Spec = (*gatv2PartOp)(nil)
)
