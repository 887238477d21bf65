package gat

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
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
	c := config{heads: 1, slope: 0.2}
	c.Bias = true
	ps, err := kit.Build(eg, in, out, &c, opts, func(c *config) float64 { return c.attnDrop })
	if err != nil {
		return nil, err
	}
	h, gain := c.heads, layerkit.ReLUGain
	l := &GATConv{in: in, out: out, cfg: c}
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
	if c.Bias {
		l.b = ps.Zeros("bias", h*out)
	}
	if c.edgeDim > 0 {
		l.we = ps.Glorot("edge_weight", 4, gain, c.edgeDim, h*out)
		l.ae = ps.GlorotAs("attn_e", 5, gain, []int{h, out}, 1, h, out)
	}
	return layerkit.Built(l, ps)
}

// Learnables returns the layer's parameters for a Gorgonia solver.
func (l *GATConv) Learnables() gorgonia.Nodes {
	return layerkit.Present(l.w, l.al, l.ar, l.res, l.b, l.we, l.ae, l.wDst)
}

// Forward applies the layer to source features x (NumSrc x in) on g and
// returns (NumDst, H*out) features, or (NumDst, out) with WithMeanHeads. On
// a bipartite graph (a sampling.Block) the destination nodes must be the
// first NumDst source nodes, as DGL's blocks: their features are the first
// rows of x, for the attention scores and the residual. g is a *graph.Graph or a worker's share of a distributed graph
// (nn.Sharded, from dist/sar), where feature and attention dropout draw the
// masks of one process on the whole graph.
func (l *GATConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	out, _, err := l.forward(g, x, nil, nil, nil, false)
	return out, err
}

// ForwardWithAttention is Forward that also returns the attention weights
// (E, H, 1), after attention dropout. A graph without edges is an error
// here: the attention would be empty.
func (l *GATConv) ForwardWithAttention(g *graph.Graph, x *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	if g != nil && g.NumEdges() == 0 {
		return nil, nil, fmt.Errorf("gat: %s: the graph has no edges, so there is no attention to return", l.cfg.Name)
	}
	return l.forward(g, x, nil, nil, nil, true)
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
	return l.forward(g, x, nil, nil, ef, true)
}

// ForwardWeighted is Forward with a weight per edge (NumEdges x 1)
// multiplying the attention, as DGL's edge_weight. On a sharded graph the
// weights' rows are in nn.Sharded's EdgeIDs order, and they are constants
// there: they get no gradient.
func (l *GATConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("gat: nil edge weight")
	}
	out, _, err := l.forward(g, x, nil, edgeWeight, nil, false)
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
	if _, err := nn.Local(g, "ForwardBipartite"); err != nil {
		return nil, fmt.Errorf("gat: %s: %w", l.cfg.Name, err)
	}
	out, _, err := l.forward(g, src, dst, nil, nil, false)
	return out, err
}

// forward runs the layer; xDst is nil for the first NumDst rows of x, and
// keep asks for the attention.
func (l *GATConv) forward(g nn.Graph, x, xDst, ew, ef *gorgonia.Node, keep bool) (out, attn *gorgonia.Node, err error) {
	if nn.IsNil(g) || x == nil {
		return nil, nil, l.cfg.Errorf("Forward needs a graph and features")
	}
	switch {
	case xDst != nil:
		err = l.cfg.CheckDst(g, xDst, l.dstIn())
	case l.wDst != nil:
		err = l.cfg.Errorf("the layer takes %d-wide destination features (WithDstIn); use ForwardBipartite", l.cfg.dstIn)
	default:
		err = l.cfg.CheckDstFirst(g)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := l.cfg.CheckInput(g, x, l.in); err != nil {
		return nil, nil, err
	}
	if err := l.checkGraph(g); err != nil {
		return nil, nil, err
	}
	if err := l.cfg.CheckEdgeFeatures(g, ef, l.cfg.edgeDim); err != nil {
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
	return l.attend(g, flat, flatDst, res, ew, ef, keep)
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
	return l.cfg.CheckZeroIn(g, "")
}

// attend computes attention over g from projected features flat
// (NumSrc, H*F) and aggregates; res, if not nil, is added before the bias.
// flatDst, if not nil, holds the projected destination features
// (NumDst, H*F), for the destination scores, and ef the edge features;
// with keep the attention is returned. Without them it is Attention on g,
// whatever g's placement; with any of them it needs a graph held by one
// process.
func (l *GATConv) attend(g nn.Graph, flat, flatDst, res, ew, ef *gorgonia.Node, keep bool) (out, attn *gorgonia.Node, err error) {
	z, err := l.split(flat)
	if err != nil {
		return nil, nil, err
	}
	var rst *gorgonia.Node
	if flatDst == nil && ef == nil && !keep {
		rst, err = nn.On(g, l.attention(), z, l.al, l.ar, ew)
	} else {
		rst, attn, err = l.attendLocal(g, z, flatDst, ew, ef)
	}
	if err != nil {
		return nil, nil, err
	}
	out, err = l.finish(rst, res)
	return out, attn, err
}

// attention is the layer's Attention.
func (l *GATConv) attention() Attention {
	return Attention{Name: l.cfg.Name, Slope: l.cfg.slope, Drop: nn.DropoutSpec{P: l.cfg.attnDrop, Seed: l.dropSeed(2), Mode: l.cfg.Mode}, Recompute: l.cfg.recompute}
}

// split gives projected features (rows, H*F) their heads: (rows, H, F).
func (l *GATConv) split(flat *gorgonia.Node) (*gorgonia.Node, error) {
	return gorgonia.Reshape(flat, tensor.Shape{flat.Shape()[0], l.cfg.heads, l.out})
}

// attendLocal is Attention on a graph held by one process, with the
// destination features flatDst and the edge features ef when not nil.
func (l *GATConv) attendLocal(sg nn.Graph, z, flatDst, ew, ef *gorgonia.Node) (rst, attn *gorgonia.Node, err error) {
	g, err := nn.Local(sg, "GATConv with edge features, destination features or the attention returned")
	if err != nil {
		return nil, nil, fmt.Errorf("gat: %s: %w", l.cfg.Name, err)
	}
	var zDst, ee *gorgonia.Node
	if flatDst != nil {
		if zDst, err = l.split(flatDst); err != nil {
			return nil, nil, err
		}
	}
	if ef != nil && g.NumEdges() > 0 {
		if ee, err = l.edgeTerm(g, ef); err != nil {
			return nil, nil, err
		}
	}
	return l.attention().kept().on(g, z, zDst, l.al, l.ar, ew, ee)
}

// edgeTerm is the edge term of the attention scores, ee = ef M (E, H, 1),
// where M (D, H) holds, for every edge feature and head, the dot product
// of the head's block of W_e's row with a_e: the same value as
// a_e · (ef W_e) without the E x H x F projection.
func (l *GATConv) edgeTerm(g *graph.Graph, ef *gorgonia.Node) (*gorgonia.Node, error) {
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
	return gorgonia.Reshape(ee, tensor.Shape{g.NumEdges(), h, 1})
}

// finish turns the aggregated rst (N, H*F) into the
// layer's output: the residual res (if not nil), the bias, the mean or
// concatenation of heads and the activation.
func (l *GATConv) finish(rst, res *gorgonia.Node) (*gorgonia.Node, error) {
	return l.cfg.Output(rst, res, l.b, l.cfg.heads, l.cfg.meanHeads)
}

var (
	_ nn.WeightedLayer  = (*GATConv)(nil)
	_ nn.BipartiteLayer = (*GATConv)(nil)
)
