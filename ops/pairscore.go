package ops

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/values"
)

// UCosV builds the cosine similarity of the source row of a and the
// destination row of b on every edge e = (u -> v) of g, as one fused op:
//
//	s[e] = <a[u], b[v]> / (max(|a[u]|, eps) * max(|b[v]|, eps))
//
// (PyTorch's cosine_similarity, each norm clamped by eps; eps = 1e-8 is
// its default). a is (NumSrc, F) and b (NumDst, F); the result is (E, 1).
// For link prediction g is a pair graph, whose edges are the (u, v) pairs
// to score, and a and b are both the node embeddings. Neither the forward
// nor the backward forms an E x F tensor: the op keeps the row norms (one
// number per node) and recomputes each edge's dot product in the backward,
// which walks the edges grouped by source for a and by destination for b.
func UCosV(g *graph.Graph, a, b *gorgonia.Node, eps float64) (*gorgonia.Node, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("ops: UCosV: eps %v must be positive and finite", eps)
	}
	f, err := pairOperands("UCosV", g, a, b)
	if err != nil {
		return nil, err
	}
	return apply(&cosOp{g: g, f: f, eps: eps}, a, b)
}

// DistMult builds the DistMult score (Yang et al., "Embedding Entities and
// Relations for Learning and Inference in Knowledge Bases", ICLR 2015) of
// every edge e = (u -> v) of g with relation rel[e], as one fused op:
//
//	s[e] = sum_f a[u,f] w[rel[e],f] b[v,f]
//
// DGL's u_mul_e_dot_v with a per-relation vector in place of an edge row.
// a is (NumSrc, F), b (NumDst, F), w (R, F) holds one learnable vector per
// relation, and rel, one relation index per edge in [0, R), is a constant
// (copied). The result is (E, 1). Gradients reach a, b and w; none of them,
// nor the forward, forms an E x F tensor.
func DistMult(g *graph.Graph, a, w, b *gorgonia.Node, rel []int32) (*gorgonia.Node, error) {
	f, err := pairOperands("DistMult", g, a, b)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, fmt.Errorf("ops: DistMult: the relation table is nil")
	}
	s := w.Shape()
	if len(s) != 2 || s[1] != f {
		return nil, fmt.Errorf("ops: DistMult: relation table %q has shape %v, want (relations, %d)", w.Name(), s, f)
	}
	if err := sameDtype(a, w); err != nil {
		return nil, err
	}
	if len(rel) != g.NumEdges() {
		return nil, fmt.Errorf("ops: DistMult: %d relation indices for %d edges", len(rel), g.NumEdges())
	}
	h := fnv.New64a()
	var buf [4]byte
	for e, r := range rel {
		if r < 0 || int(r) >= s[0] {
			return nil, fmt.Errorf("ops: DistMult: edge %d has relation %d but the table %q has %d rows", e, r, w.Name(), s[0])
		}
		binary.LittleEndian.PutUint32(buf[:], uint32(r))
		h.Write(buf[:])
	}
	return apply(&distMultOp{g: g, f: f, r: s[0], rel: append([]int32(nil), rel...), relHash: h.Sum64()}, a, w, b)
}

// pairOperands checks the operands of a pair scorer: g has edges, a has a
// (NumSrc, F) shape and b a (NumDst, F) one of the same dtype. It returns F.
func pairOperands(name string, g *graph.Graph, a, b *gorgonia.Node) (int, error) {
	if g == nil {
		return 0, fmt.Errorf("ops: %s on a nil graph", name)
	}
	if g.NumEdges() == 0 {
		return 0, emptyResult(name, "edges")
	}
	fa, err := checkOperand(g, a, U, "left operand")
	if err != nil {
		return 0, fmt.Errorf("%w (%s)", err, name)
	}
	fb, err := checkOperand(g, b, V, "right operand")
	if err != nil {
		return 0, fmt.Errorf("%w (%s)", err, name)
	}
	if len(fa) != 1 || len(fb) != 1 || fa[0] != fb[0] {
		return 0, fmt.Errorf("ops: %s: operands %q %v and %q %v must be (rows, F) matrices of one width", name, a.Name(), a.Shape(), b.Name(), b.Shape())
	}
	if err := sameDtype(a, b); err != nil {
		return 0, err
	}
	return fa[0], nil
}

// cosOp is UCosV, taking (a, b).
type cosOp struct {
	g   *graph.Graph
	f   int
	eps float64
}

func (op *cosOp) Name() string { return fmt.Sprintf("u_cos_v(%g)", op.eps) }

func (op *cosOp) Key() string { return fmt.Sprintf("g=%d,f=%d", op.g.ID(), op.f) }

func (op *cosOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.g.NumSrc(), op.f}, {op.g.NumDst(), op.f}}, tensor.Shape{op.g.NumEdges(), 1}
}

// DoInto is Do into dst (opkit.Into).
func (op *cosOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.do(dst, -1, vals)
}

// do is cosDo (scorer).
func (op *cosOp) do(dst *tensor.Dense, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return cosDo[float32](dst, op, wrt, vals) },
		func() (gorgonia.Value, error) { return cosDo[float64](dst, op, wrt, vals) })
}

// Grad gives a and b a backward op each over (a, b, scores, dscores): the
// scores spare the backward a dot product per edge.
func (op *cosOp) Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	return gradOps(op, append(inputs[:len(inputs):len(inputs)], output, grad))
}

// cosDo computes the scores (wrt -1) or the gradient with respect to input
// wrt, whose values end with the scores and their gradient, into dst when
// it fits (values.AllocInto), else into a new tensor.
func cosDo[T num.Float](dst *tensor.Dense, op *cosOp, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	k := newCosKernel(op.g, op.f, in[0], in[1], op.eps)
	fin, shape := op.Shapes()
	if wrt >= 0 {
		shape = fin[wrt]
	}
	t, out := values.AllocInto[T](dst, shape)
	if wrt < 0 {
		k.forward(out)
	} else {
		k.grad(out, in[2], in[3], wrt == 0)
	}
	return t, nil
}

// distMultOp is DistMult, taking (a, w, b).
type distMultOp struct {
	g       *graph.Graph
	f, r    int
	rel     []int32
	relHash uint64
}

func (op *distMultOp) Name() string { return "u_mul_r_dot_v" }

func (op *distMultOp) Key() string {
	return fmt.Sprintf("g=%d,f=%d,r=%d,rel=%x", op.g.ID(), op.f, op.r, op.relHash)
}

func (op *distMultOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.g.NumSrc(), op.f}, {op.r, op.f}, {op.g.NumDst(), op.f}}, tensor.Shape{op.g.NumEdges(), 1}
}

// DoInto is Do into dst (opkit.Into).
func (op *distMultOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.do(dst, -1, vals)
}

// do is distMultDo (scorer).
func (op *distMultOp) do(dst *tensor.Dense, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return distMultDo[float32](dst, op, wrt, vals) },
		func() (gorgonia.Value, error) { return distMultDo[float64](dst, op, wrt, vals) })
}

// Grad gives a, w and b a backward op each over (a, w, b, dscores).
func (op *distMultOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	return gradOps(op, append(inputs[:len(inputs):len(inputs)], grad))
}

// distMultDo computes the scores (wrt -1) or the gradient with respect to
// input wrt, whose values end with the gradient of the scores, into dst
// when it fits (values.AllocInto), else into a new tensor.
func distMultDo[T num.Float](dst *tensor.Dense, op *distMultOp, wrt int, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	k := &distMultKernel[T]{g: op.g, f: op.f, a: in[0], w: in[1], b: in[2], rel: op.rel}
	fin, shape := op.Shapes()
	if wrt >= 0 {
		shape = fin[wrt]
	}
	t, out := values.AllocInto[T](dst, shape)
	switch wrt {
	case -1:
		k.forward(out)
	case 0:
		k.gradNodes(out, in[3], true)
	case 1:
		k.gradW(out, in[3])
	case 2:
		k.gradNodes(out, in[3], false)
	}
	return t, nil
}

var (
	_ scorer = (*cosOp)(nil)
	_ scorer = (*distMultOp)(nil)
)
