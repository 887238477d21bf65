package gat

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// GATConv is a multi-head graph attention layer. Build it with New.
type GATConv struct {
	in, out int // out is per head
	cfg     config
	w       *gorgonia.Node // (in, H*out)
	al, ar  *gorgonia.Node // (1, H, out)
	res     *gorgonia.Node // (in, H*out) projection, or nil
	b       *gorgonia.Node // (H*out) or nil
	we, ae  *gorgonia.Node // edge projection (D, H*out) and attention (1, H, out), or nil
	wDst    *gorgonia.Node // (dstIn, H*out) with WithDstIn, or nil
}

// dstIn is the width of the destination features ForwardBipartite takes.
func (l *GATConv) dstIn() int {
	if l.cfg.dstIn > 0 {
		return l.cfg.dstIn
	}
	return l.in
}

// New adds a GATConv with in input features and out output features per
// head to eg. Weights are Glorot-uniform initialised with gain sqrt(2), as
// DGL does; the bias starts at 0.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*GATConv, error) {
	if err := kit.Sizes(in, out); err != nil {
		return nil, err
	}
	c := config{heads: 1, slope: 0.2, bias: true}
	if err := kit.Setup(eg, &c, opts, func(c *config) float64 { return c.attnDrop }); err != nil {
		return nil, err
	}
	h, gain := c.heads, math.Sqrt2
	l := &GATConv{in: in, out: out, cfg: c}
	ps := c.Params(eg)
	l.w = ps.Glorot("weight", 0, gain, in, h*out)
	// Attention vectors are initialised as (H, out) matrices (fans H and
	// out), then given their broadcast shape (1, H, out). PyTorch's
	// xavier init of DGL's (1, H, out) tensor takes fans H*out and out
	// instead, a bound smaller by sqrt(out*(H+1)/(H+out)) (2.1 for 8 heads
	// of 8 features).
	l.al = ps.GlorotAs("attn_l", 1, gain, []int{h, out}, 1, h, out)
	l.ar = ps.GlorotAs("attn_r", 2, gain, []int{h, out}, 1, h, out)
	if c.dstIn > 0 {
		l.wDst = ps.Glorot("dst_weight", 6, gain, c.dstIn, h*out)
	}
	if resIn := l.dstIn(); c.residual && resIn != h*out {
		l.res = ps.Glorot("res_weight", 3, gain, resIn, h*out)
	}
	if c.bias {
		l.b = ps.Zeros("bias", h*out)
	}
	if c.edgeDim > 0 {
		l.we = ps.Glorot("edge_weight", 4, gain, c.edgeDim, h*out)
		l.ae = ps.GlorotAs("attn_e", 5, gain, []int{h, out}, 1, h, out)
	}
	if err := ps.Err(); err != nil {
		return nil, err
	}
	return l, nil
}

// Learnables returns the layer's parameters for a Gorgonia solver.
func (l *GATConv) Learnables() gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, p := range []*gorgonia.Node{l.w, l.al, l.ar, l.res, l.b, l.we, l.ae, l.wDst} {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// Forward applies the layer to source features x (NumSrc x in) on g and
// returns (NumDst, H*out) features, or (NumDst, out) with WithMeanHeads. On
// a bipartite graph (a sampling.Block) the destination nodes must be the
// first NumDst source nodes, as DGL's blocks: their features are the first
// rows of x, for the attention scores and the residual. g is a *graph.Graph or a worker's share of a distributed graph
// (nn.Sharded, from dist/sar), where feature and attention dropout draw the
// masks of one process on the whole graph.
func (l *GATConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	out, _, err := l.forward(g, x, nil, nil, nil)
	return out, err
}

// ForwardWithAttention is Forward that also returns the attention weights
// (E, H, 1), after attention dropout. A graph without edges is an error
// here: the attention would be empty.
func (l *GATConv) ForwardWithAttention(g *graph.Graph, x *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	if g != nil && g.NumEdges() == 0 {
		return nil, nil, fmt.Errorf("gat: %s: the graph has no edges, so there is no attention to return", l.cfg.Name)
	}
	return l.forward(g, x, nil, nil, nil)
}

// ForwardEdges is ForwardWithAttention with edge features ef (NumEdges x D)
// in the attention, for a layer built WithEdgeFeatures(D). The edge term
// costs H numbers per edge: the projection W_e and the attention vector
// a_e are first folded into one (D, H) matrix, so no E x H x F tensor is
// formed (PyG projects every edge to H x F features first).
func (l *GATConv) ForwardEdges(g *graph.Graph, x, ef *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	if ef == nil {
		return nil, nil, fmt.Errorf("gat: %s: nil edge features", l.cfg.Name)
	}
	if g != nil && g.NumEdges() == 0 {
		return nil, nil, fmt.Errorf("gat: %s: the graph has no edges, so it can have no edge features", l.cfg.Name)
	}
	return l.forward(g, x, nil, nil, ef)
}

// ForwardWeighted is Forward with a weight per edge (NumEdges x 1)
// multiplying the attention, as DGL's edge_weight. On a sharded graph the
// weights' rows are in nn.Sharded's EdgeIDs order, and they are constants
// there: they get no gradient.
func (l *GATConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("gat: nil edge weight")
	}
	out, _, err := l.forward(g, x, nil, edgeWeight, nil)
	return out, err
}

// ForwardBipartite applies the layer to a graph between two node sets,
// with source features src (NumSrc x in) and destination features dst
// (NumDst x the WithDstIn width, or in without it), as DGL's GATConv on a
// (feat_src, feat_dst) pair: the source scores and messages come from the
// projected src, the destination scores and the residual from dst. It is
// how HeteroGraphConv runs the layer on a relation between two node types.
func (l *GATConv) ForwardBipartite(g nn.Graph, src, dst *gorgonia.Node) (*gorgonia.Node, error) {
	if dst == nil {
		return nil, fmt.Errorf("gat: %s: nil destination features", l.cfg.Name)
	}
	if _, ok := g.(nn.Sharded); ok {
		return nil, fmt.Errorf("gat: %s: ForwardBipartite on a sharded graph is not supported", l.cfg.Name)
	}
	out, _, err := l.forward(g, src, dst, nil, nil)
	return out, err
}

// forward runs the layer; xDst is nil for the first NumDst rows of x.
func (l *GATConv) forward(g nn.Graph, x, xDst, ew, ef *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	name := l.cfg.Name
	if nn.IsNil(g) || x == nil {
		return nil, nil, fmt.Errorf("gat: %s: Forward needs a graph and features", name)
	}
	if xDst != nil {
		if s := xDst.Shape(); len(s) != 2 || s[0] != g.NumDst() || s[1] != l.dstIn() {
			return nil, nil, fmt.Errorf("gat: %s: destination features %q have shape %v, want (%d, %d)", name, xDst.Name(), s, g.NumDst(), l.dstIn())
		}
		if xDst.Dtype() != l.cfg.Dtype {
			return nil, nil, fmt.Errorf("gat: %s: destination features have dtype %v, the layer %v", name, xDst.Dtype(), l.cfg.Dtype)
		}
	} else if l.wDst != nil {
		return nil, nil, fmt.Errorf("gat: %s: the layer takes %d-wide destination features (WithDstIn); use ForwardBipartite", name, l.cfg.dstIn)
	}
	if xDst == nil && g.NumDst() > g.NumSrc() {
		return nil, nil, fmt.Errorf("gat: %s: graph has %d destination nodes but %d sources; the destinations must be the first NumDst sources", name, g.NumDst(), g.NumSrc())
	}
	n := g.NumSrc()
	if s := x.Shape(); len(s) != 2 || s[0] != n || s[1] != l.in {
		return nil, nil, fmt.Errorf("gat: %s: features %q have shape %v, want (%d, %d)", name, x.Name(), s, n, l.in)
	}
	if x.Dtype() != l.cfg.Dtype {
		return nil, nil, fmt.Errorf("gat: %s: features have dtype %v, the layer %v", name, x.Dtype(), l.cfg.Dtype)
	}
	if err := l.checkGraph(g); err != nil {
		return nil, nil, err
	}
	if err := l.checkEdges(g, ef); err != nil {
		return nil, nil, err
	}
	h0 := x
	if l.cfg.Dropout > 0 {
		if h0, err = nn.DropoutOn(g, x, l.cfg.Dropout, l.dropSeed(1), l.cfg.Mode); err != nil {
			return nil, nil, err
		}
	}
	flat, err := nn.MatMul(h0, l.w) // (N, H*F)
	if err != nil {
		return nil, nil, err
	}
	var flatDst, res *gorgonia.Node
	hDst := xDst
	if xDst != nil {
		if l.cfg.Dropout > 0 {
			if hDst, err = nn.Dropout(xDst, l.cfg.Dropout, l.dropSeed(3), l.cfg.Mode); err != nil {
				return nil, nil, err
			}
		}
		wd := l.w
		if l.wDst != nil {
			wd = l.wDst
		}
		if flatDst, err = nn.MatMul(hDst, wd); err != nil {
			return nil, nil, err
		}
	}
	if l.cfg.residual {
		if hDst != nil {
			res = hDst
		} else if res, err = nn.DstRows(g, h0); err != nil {
			return nil, nil, err
		}
		if l.res != nil {
			if res, err = nn.MatMul(res, l.res); err != nil {
				return nil, nil, err
			}
		}
	}
	return l.attend(g, flat, flatDst, res, ew, ef)
}

// checkEdges checks that edge features are given exactly when the layer
// has an edge term, and their shape and dtype.
func (l *GATConv) checkEdges(g nn.Graph, ef *gorgonia.Node) error {
	name, d := l.cfg.Name, l.cfg.edgeDim
	switch {
	case ef == nil && d > 0:
		return fmt.Errorf("gat: %s: the layer takes edge features of size %d; use ForwardEdges", name, d)
	case ef == nil:
		return nil
	case d == 0:
		return fmt.Errorf("gat: %s: edge features given to a layer built without WithEdgeFeatures", name)
	}
	if s := ef.Shape(); len(s) != 2 || s[0] != g.NumEdges() || s[1] != d {
		return fmt.Errorf("gat: %s: edge features %q have shape %v, want (%d, %d)", name, ef.Name(), s, g.NumEdges(), d)
	}
	if ef.Dtype() != l.cfg.Dtype {
		return fmt.Errorf("gat: %s: edge features have dtype %v, the layer %v", name, ef.Dtype(), l.cfg.Dtype)
	}
	return nil
}

// dropSeed returns the seed of dropout site k of the layer.
func (l *GATConv) dropSeed(k uint64) uint64 { return nn.ParamSeed(l.cfg.Seed, 100+k) }

// checkGraph applies the zero in-degree rule and rejects a graph without
// nodes (the output would be empty). A graph with nodes but no edges, when
// zero in-degrees are allowed, aggregates zeros (see attend).
func (l *GATConv) checkGraph(g nn.Graph) error {
	if g.NumDst() == 0 {
		return fmt.Errorf("gat: %s: the graph has no destination nodes, so the output would be empty", l.cfg.Name)
	}
	if !l.cfg.allowZeroIn {
		if z := g.ZeroInDegree(); len(z) > 0 {
			return fmt.Errorf("gat: %s: %d of %d nodes have no in-edges (node %d first); add self-loops (graph.AddSelfLoops) or use WithAllowZeroInDegree(true)", l.cfg.Name, len(z), g.NumDst(), z[0])
		}
	}
	return nil
}

// attend computes attention over g from projected features flat (N, H*F)
// and aggregates; res, if not nil, is added before the bias. flatDst, if
// not nil, holds the projected destination features (NumDst, H*F), for
// the destination scores; otherwise they are the first rows of flat's.
func (l *GATConv) attend(sg nn.Graph, flat, flatDst, res, ew, ef *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	var eids []int64 // on a worker's one-shot block: the global edge IDs, for the attention dropout
	if s, ok := sg.(nn.Sharded); ok {
		b, err := s.OneShotBlock()
		if err != nil {
			return nil, nil, fmt.Errorf("gat: %s: %w", l.cfg.Name, err)
		}
		if b != nil {
			// One-shot mode: the single-process ops on the worker's block,
			// with the projected rows of its remote sources fetched at once.
			if flat, err = s.Halo(flat); err != nil {
				return nil, nil, fmt.Errorf("gat: %s: %w", l.cfg.Name, err)
			}
			if eids = s.EdgeIDs(); eids == nil && l.cfg.attnDrop > 0 {
				return nil, nil, fmt.Errorf("gat: %s: attention dropout on a sharded graph needs the partition's global edge IDs", l.cfg.Name)
			}
			sg = b
		}
	}
	n, h, f := sg.NumSrc(), l.cfg.heads, l.out
	z, err := gorgonia.Reshape(flat, tensor.Shape{n, h, f})
	if err != nil {
		return nil, nil, err
	}
	if s, ok := sg.(nn.Sharded); ok && ef == nil {
		// Scores, attention and aggregation in one op, from z and the
		// attention vectors: the scores and their (N, H, F) gradients are
		// no nodes here, and attention is computed and consumed shard by
		// shard, never returned.
		drop := nn.DropoutSpec{P: l.cfg.attnDrop, Seed: l.dropSeed(2), Mode: l.cfg.Mode}
		rst, err := s.GATAggregate(z, l.al, l.ar, ew, l.cfg.slope, drop)
		if err != nil {
			return nil, nil, err
		}
		out, err = l.finish(rst, res)
		return out, nil, err
	}
	el, err := headScores(z, l.al, n, h)
	if err != nil {
		return nil, nil, err
	}
	var er, erSrc *gorgonia.Node
	if flatDst != nil {
		nd := sg.NumDst()
		zd, err := gorgonia.Reshape(flatDst, tensor.Shape{nd, h, f})
		if err != nil {
			return nil, nil, err
		}
		if er, err = headScores(zd, l.ar, nd, h); err != nil {
			return nil, nil, err
		}
	} else {
		if erSrc, err = headScores(z, l.ar, n, h); err != nil {
			return nil, nil, err
		}
		// On a block the destinations are the first sources: their scores are
		// the first rows (isolated still sums the scores of all sources).
		if er, err = nn.DstRows(sg, erSrc); err != nil {
			return nil, nil, err
		}
	}
	g, err := nn.Local(sg, "edge weights or features")
	if err != nil {
		return nil, nil, fmt.Errorf("gat: %s: %w", l.cfg.Name, err)
	}
	if g.NumEdges() == 0 {
		out, err := l.isolated(g, z, el, erSrc, er, res, ew)
		return out, nil, err
	}
	if ef != nil {
		if attn, err = l.edgeAttention(g, el, er, ef); err != nil {
			return nil, nil, err
		}
	} else if attn, err = ops.GATAttention(g, el, er, l.cfg.slope); err != nil {
		// Edge softmax of LeakyReLU(el[u] + er[v]) in one op: (E, H, 1).
		return nil, nil, err
	}
	if l.cfg.attnDrop > 0 {
		if eids != nil {
			// The masks of one process on the whole graph, by edge ID.
			attn, err = nn.DropoutRows(attn, l.cfg.attnDrop, l.dropSeed(2), l.cfg.Mode, eids)
		} else {
			attn, err = nn.Dropout(attn, l.cfg.attnDrop, l.dropSeed(2), l.cfg.Mode)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if ew != nil {
		if attn, err = ops.EMulE(g, attn, ew); err != nil {
			return nil, nil, fmt.Errorf("gat: %s: edge weight: %w", l.cfg.Name, err)
		}
	}
	rst, err := ops.UMulESum(g, z, attn) // (N, H, F)
	if err != nil {
		return nil, nil, err
	}
	out, err = l.finish(rst, res)
	return out, attn, err
}

// edgeAttention is the attention with an edge term: the edge softmax of
// LeakyReLU(el[u] + er[v] + ee[e]), where ee = ef M and M (D, H) holds,
// for every edge feature and head, the dot product of the head's block of
// W_e's row with a_e: the same value as a_e · (ef W_e) without the E x H x F
// projection. It keeps four (E, H, 1) tensors where GATAttention keeps one.
func (l *GATConv) edgeAttention(g *graph.Graph, el, er, ef *gorgonia.Node) (*gorgonia.Node, error) {
	d, h, f := l.cfg.edgeDim, l.cfg.heads, l.out
	w, err := gorgonia.Reshape(l.we, tensor.Shape{d, h, f})
	if err != nil {
		return nil, err
	}
	m, err := headScores(w, l.ae, d, h) // (D, H, 1)
	if err != nil {
		return nil, err
	}
	if m, err = gorgonia.Reshape(m, tensor.Shape{d, h}); err != nil {
		return nil, err
	}
	ee, err := nn.MatMul(ef, m) // (E, H)
	if err != nil {
		return nil, err
	}
	if ee, err = gorgonia.Reshape(ee, tensor.Shape{g.NumEdges(), h, 1}); err != nil {
		return nil, err
	}
	s, err := ops.UAddV(g, el, er)
	if err != nil {
		return nil, err
	}
	if s, err = gorgonia.Add(s, ee); err != nil {
		return nil, err
	}
	if s, err = gorgonia.LeakyRelu(s, l.cfg.slope); err != nil {
		return nil, err
	}
	return ops.EdgeSoftmax(g, s, ops.ByDst)
}

// isolated is attend on a graph without edges: there is no attention (it
// would be an empty tensor, which Gorgonia cannot compute with) and every
// aggregation is zero. The scores el and er still reach the output, through
// sums over no in-edges, so that their parameters get their zero gradients,
// as in DGL.
// er holds the destination scores of all sources; on a relation between
// two node sets it is nil and erDst holds the destinations' own, which
// reach the output through a sum over the reversed graph's no in-edges.
func (l *GATConv) isolated(g *graph.Graph, z, el, er, erDst, res, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if ew != nil && ew.Shape().TotalSize() != 0 {
		return nil, fmt.Errorf("gat: %s: edge weight %q has shape %v but the graph has no edges", l.cfg.Name, ew.Name(), ew.Shape())
	}
	rst, err := ops.CopyUSum(g, z) // (N, H, F) zeros
	if err != nil {
		return nil, err
	}
	if er == nil {
		if er, err = ops.CopyUSum(g.Reverse(), erDst); err != nil { // (NumSrc, H, 1) zeros
			return nil, err
		}
	}
	s, err := gorgonia.Add(el, er)
	if err != nil {
		return nil, err
	}
	if s, err = ops.CopyUSum(g, s); err != nil { // (N, H, 1) zeros
		return nil, err
	}
	if rst, err = gorgonia.BroadcastAdd(rst, s, nil, []byte{2}); err != nil {
		return nil, err
	}
	return l.finish(rst, res)
}

// finish turns the aggregated rst, (N, H, F) or already (N, H*F), into the
// layer's output: the residual res (if not nil), the bias, the mean or
// concatenation of heads and the activation.
func (l *GATConv) finish(rst, res *gorgonia.Node) (*gorgonia.Node, error) {
	n, h, f := rst.Shape()[0], l.cfg.heads, l.out
	var err error
	if rst.Shape().Dims() != 2 {
		// Not for a 2-D rst: the sharded aggregation's backward reads its
		// result, which a reshaped view would let Gorgonia overwrite.
		if rst, err = gorgonia.Reshape(rst, tensor.Shape{n, h * f}); err != nil {
			return nil, err
		}
	}
	if res != nil {
		if rst, err = gorgonia.Add(rst, res); err != nil {
			return nil, err
		}
	}
	if l.b != nil {
		if rst, err = nn.AddBias(rst, l.b); err != nil {
			return nil, err
		}
	}
	if l.cfg.meanHeads && h > 1 {
		if rst, err = nn.MeanHeads(rst, h); err != nil {
			return nil, err
		}
	}
	if l.cfg.act != nil {
		if rst, err = l.cfg.act(rst); err != nil {
			return nil, err
		}
	}
	return rst, nil
}

var (
	_ nn.WeightedLayer  = (*GATConv)(nil)
	_ nn.BipartiteLayer = (*GATConv)(nil)
)

var (
	_ nn.WeightedLayer  = (*GATConv)(nil)
	_ nn.BipartiteLayer = (*GATConv)(nil)
)
