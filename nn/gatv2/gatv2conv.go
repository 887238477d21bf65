package gatv2

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/ops"
)

// GATv2Conv is a multi-head dynamic graph attention layer. Build it with New.
type GATv2Conv struct {
	in, out int // out is per head
	cfg     config
	ws, bs  *gorgonia.Node // source projection (in, H*out) and bias (H*out)
	wd, bd  *gorgonia.Node // destination projection, nil when shared
	attn    *gorgonia.Node // (1, H, out)
	rw, rb  *gorgonia.Node // residual projection, or nil
	we      *gorgonia.Node // edge projection (D, H*out), or nil
}

// New adds a GATv2Conv with in input features and out output features per
// head to eg. Weights are Glorot-uniform initialised with gain sqrt(2) (DGL
// draws them from the Glorot normal distribution of the same variance);
// biases start at 0.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*GATv2Conv, error) {
	c := config{heads: 1, slope: 0.2}
	c.Bias = true
	ps, err := kit.Build(eg, in, out, &c, opts, func(c *config) float64 { return c.attnDrop })
	if err != nil {
		return nil, err
	}
	hf, gain := c.heads*out, layerkit.ReLUGain
	l := &GATv2Conv{in: in, out: out, cfg: c}
	bias := func(suffix string) *gorgonia.Node {
		if !c.Bias {
			return nil
		}
		return ps.Zeros(suffix, hf)
	}
	l.ws = ps.Glorot("weight_src", 0, gain, in, hf)
	l.bs = bias("bias_src")
	if !c.share {
		l.wd = ps.Glorot("weight_dst", 1, gain, in, hf)
		l.bd = bias("bias_dst")
	}
	// As in package gat: initialised as an (H, out) matrix, then given its
	// broadcast shape.
	l.attn = ps.GlorotAs("attn", 2, gain, []int{c.heads, out}, 1, c.heads, out)
	if c.residual && in != hf {
		l.rw = ps.Glorot("res_weight", 3, gain, in, hf)
		l.rb = bias("res_bias")
	}
	if c.edgeDim > 0 {
		l.we = ps.Glorot("edge_weight", 4, gain, c.edgeDim, hf)
	}
	return layerkit.Built(l, ps)
}

// Learnables returns the layer's parameters for a Gorgonia solver: the
// source weight and bias, the destination weight and bias, the attention
// vector, the residual weight and bias and the edge projection, those the
// options give.
func (l *GATv2Conv) Learnables() gorgonia.Nodes {
	return layerkit.Present(l.ws, l.bs, l.wd, l.bd, l.attn, l.rw, l.rb, l.we)
}

// Forward applies the layer to node features x (NumSrc x in) on g and
// returns (NumDst, H*out) features, or (NumDst, out) with WithMeanHeads.
// GATv2Conv has no sharded (distributed) path: g must be a *graph.Graph.
func (l *GATv2Conv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	pg, err := nn.Local(g, "gatv2: "+l.cfg.Name)
	if err != nil {
		return nil, err
	}
	out, _, err := l.forward(pg, x, nil, nil)
	return out, err
}

// ForwardWithAttention is Forward that also returns the attention weights
// (E, H, 1), after attention dropout. A graph without edges has no
// attention to return: that is an error.
func (l *GATv2Conv) ForwardWithAttention(g *graph.Graph, x *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	if g != nil && g.NumEdges() == 0 {
		return nil, nil, fmt.Errorf("gatv2: %s: the graph has no edges, so there is no attention to return", l.cfg.Name)
	}
	return l.forward(g, x, nil, nil)
}

// ForwardWeighted is Forward with a weight per edge (NumEdges x 1)
// multiplying the attention, as DGL's GATConv edge_weight.
func (l *GATv2Conv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("gatv2: nil edge weight")
	}
	pg, err := nn.Local(g, "gatv2: "+l.cfg.Name)
	if err != nil {
		return nil, err
	}
	out, _, err := l.forward(pg, x, edgeWeight, nil)
	return out, err
}

// ForwardEdges is ForwardWithAttention with edge features ef (NumEdges x D)
// in the attention, for a layer built WithEdgeFeatures(D).
func (l *GATv2Conv) ForwardEdges(g *graph.Graph, x, ef *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	if ef == nil {
		return nil, nil, fmt.Errorf("gatv2: %s: nil edge features", l.cfg.Name)
	}
	return l.forward(g, x, nil, ef)
}

func (l *GATv2Conv) forward(g *graph.Graph, x, ew, ef *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	if err := l.cfg.CheckInput(g, x, l.in); err != nil {
		return nil, nil, err
	}
	if err := l.cfg.CheckDstFirst(g); err != nil {
		return nil, nil, err
	}
	if err := l.cfg.CheckEdgeFeatures(g, ef, l.cfg.edgeDim); err != nil {
		return nil, nil, err
	}
	if err := l.checkGraph(g, ef); err != nil {
		return nil, nil, err
	}
	h0 := x
	if l.cfg.Dropout > 0 {
		if h0, err = nn.Dropout(x, l.cfg.Dropout, nn.ParamSeed(l.cfg.Seed, 101), l.cfg.Mode); err != nil {
			return nil, nil, err
		}
	}
	hd, err := nn.DstRows(g, h0)
	if err != nil {
		return nil, nil, err
	}
	zs, err := linear(h0, l.ws, l.bs)
	if err != nil {
		return nil, nil, err
	}
	zd, err := nn.DstRows(g, zs)
	if err != nil {
		return nil, nil, err
	}
	if l.wd != nil {
		if zd, err = linear(hd, l.wd, l.bd); err != nil {
			return nil, nil, err
		}
	}
	var res *gorgonia.Node
	if l.cfg.residual {
		res = hd
		if l.rw != nil {
			if res, err = linear(hd, l.rw, l.rb); err != nil {
				return nil, nil, err
			}
		}
	}
	return l.attend(g, zs, zd, res, ew, ef)
}

// checkGraph applies the zero in-degree rule. A graph without edges (zero
// in-degrees allowed) is accepted by Forward and ForwardWeighted (see
// isolated), not by the entry points that return or score per-edge values.
func (l *GATv2Conv) checkGraph(g *graph.Graph, ef *gorgonia.Node) error {
	if g.NumDst() == 0 {
		return fmt.Errorf("gatv2: %s: the graph has no destination nodes, so the output would be empty, which Gorgonia cannot compute with", l.cfg.Name)
	}
	if err := l.cfg.CheckZeroIn(g, ""); err != nil {
		return err
	}
	if g.NumEdges() == 0 && ef != nil {
		return fmt.Errorf("gatv2: %s: the graph has no edges, so there are no edge features to score; use Forward", l.cfg.Name)
	}
	return nil
}

// isolated is attend on a graph without edges: there is no attention (it
// would be an empty tensor, which Gorgonia cannot compute with) and every
// aggregation is zero, so the output is the residual alone. The projections
// and the attention vector still reach the output, through sums over no
// in-edges, so that their parameters get their zero gradients, as in DGL.
func (l *GATv2Conv) isolated(g *graph.Graph, zl, zr, res, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if ew != nil && ew.Shape().TotalSize() != 0 {
		return nil, fmt.Errorf("gatv2: %s: edge weight %q has shape %v but the graph has no edges", l.cfg.Name, ew.Name(), ew.Shape())
	}
	back, err := ops.CopyUSum(g.Reverse(), zr) // (NumSrc, H, F) zeros
	if err != nil {
		return nil, err
	}
	t, err := gorgonia.Add(zl, back)
	if err != nil {
		return nil, err
	}
	if t, err = gorgonia.BroadcastHadamardProd(t, l.attn, nil, []byte{0}); err != nil {
		return nil, err
	}
	rst, err := ops.CopyUSum(g, t) // (NumDst, H, F) zeros
	if err != nil {
		return nil, err
	}
	return l.finish(rst, res)
}

// attend scores the edges from the projected source and destination
// features zs (NumSrc, H*F) and zd (NumDst, H*F), normalises, aggregates zs,
// adds res when not nil, and averages heads and activates as configured.
func (l *GATv2Conv) attend(g *graph.Graph, zs, zd, res, ew, ef *gorgonia.Node) (out, attn *gorgonia.Node, err error) {
	h, f := l.cfg.heads, l.out
	zl, err := gorgonia.Reshape(zs, tensor.Shape{g.NumSrc(), h, f})
	if err != nil {
		return nil, nil, err
	}
	zr, err := gorgonia.Reshape(zd, tensor.Shape{g.NumDst(), h, f})
	if err != nil {
		return nil, nil, err
	}
	if g.NumEdges() == 0 {
		out, err := l.isolated(g, zl, zr, res, ew)
		return out, nil, err
	}
	var s *gorgonia.Node
	if ef != nil {
		s, err = ops.GATv2EdgeScores(g, zl, zr, l.attn, ef, l.we, l.cfg.slope)
	} else {
		s, err = ops.GATv2Scores(g, zl, zr, l.attn, l.cfg.slope)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gatv2: %s: %w", l.cfg.Name, err)
	}
	if attn, err = ops.EdgeSoftmax(g, s, ops.ByDst); err != nil {
		return nil, nil, err
	}
	if l.cfg.attnDrop > 0 {
		if attn, err = nn.Dropout(attn, l.cfg.attnDrop, nn.ParamSeed(l.cfg.Seed, 102), l.cfg.Mode); err != nil {
			return nil, nil, err
		}
	}
	if ew != nil {
		if attn, err = ops.EMulE(g, attn, ew); err != nil {
			return nil, nil, fmt.Errorf("gatv2: %s: edge weight: %w", l.cfg.Name, err)
		}
	}
	rst, err := ops.UMulESum(g, zl, attn) // (NumDst, H, F)
	if err != nil {
		return nil, nil, err
	}
	out, err = l.finish(rst, res)
	return out, attn, err
}

// finish turns the aggregated (NumDst, H, F) rst into the layer's output:
// the residual res (if not nil), the mean or concatenation of heads and the
// activation.
func (l *GATv2Conv) finish(rst, res *gorgonia.Node) (*gorgonia.Node, error) {
	n, h, f := rst.Shape()[0], l.cfg.heads, l.out
	var err error
	if rst, err = gorgonia.Reshape(rst, tensor.Shape{n, h * f}); err != nil {
		return nil, err
	}
	return l.cfg.Output(rst, res, nil, h, l.cfg.meanHeads)
}

// linear returns x w, plus b when b is not nil.
func linear(x, w, b *gorgonia.Node) (*gorgonia.Node, error) {
	y, err := nn.MatMul(x, w)
	if err != nil || b == nil {
		return y, err
	}
	return nn.AddBias(y, b)
}

var _ nn.WeightedLayer = (*GATv2Conv)(nil)
