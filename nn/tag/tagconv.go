package tag

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/prop"
)

// TAGConv is a topology adaptive graph convolution. Build it with New.
type TAGConv struct {
	in, out int
	cfg     config
	w, b    *gorgonia.Node // w ((K+1)*in, out); b nil without bias
}

// New adds a TAGConv with in input and out output features to eg. The
// weight ((K+1)*in, out) is Glorot-uniform initialised with gain sqrt(2)
// (DGL draws it from the Glorot normal distribution of the same
// variance); the bias starts at 0.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*TAGConv, error) {
	if eg == nil {
		return nil, fmt.Errorf("tag: nil expression graph")
	}
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("tag: feature sizes must be positive, got in %d, out %d", in, out)
	}
	c := config{k: 2, bias: true, dtype: tensor.Float32}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.name == "" {
		c.name = nn.UniqueName(eg, "tag")
	}
	if !c.seedSet {
		c.seed = nn.SeedOf(c.name)
	}
	l := &TAGConv{in: in, out: out, cfg: c}
	w, err := nn.Glorot(c.dtype, nn.ParamSeed(c.seed, 0), math.Sqrt2, (c.k+1)*in, out)
	if err != nil {
		return nil, err
	}
	l.w = nn.Param(eg, c.name+".weight", w)
	if c.bias {
		l.b = nn.Param(eg, c.name+".bias", nn.Zeros(c.dtype, out))
	}
	return l, nil
}

// Learnables returns the weight, then the bias if the layer has one.
func (l *TAGConv) Learnables() gorgonia.Nodes {
	if l.b == nil {
		return gorgonia.Nodes{l.w}
	}
	return gorgonia.Nodes{l.w, l.b}
}

// Forward applies the layer to x (N x in) on the homogeneous graph g and
// returns (N, out). TAGConv has no sharded (distributed) path: g must be a
// *graph.Graph.
func (l *TAGConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	pg, err := nn.Local(g, "tag: "+l.cfg.name)
	if err != nil {
		return nil, err
	}
	return l.forward(pg, x, nil)
}

// ForwardWeighted is Forward with a weight per edge (NumEdges, or
// NumEdges x 1) used as is in place of the degree normalisation, as DGL's
// edge_weight.
func (l *TAGConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("tag: nil edge weight")
	}
	pg, err := nn.Local(g, "tag: "+l.cfg.name)
	if err != nil {
		return nil, err
	}
	return l.forward(pg, x, edgeWeight)
}

func (l *TAGConv) forward(g *graph.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	name := l.cfg.name
	if g == nil || x == nil {
		return nil, fmt.Errorf("tag: %s: Forward needs a graph and features", name)
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("tag: %s: graph has %d source and %d destination nodes; TAGConv needs a homogeneous graph", name, g.NumSrc(), g.NumDst())
	}
	if s := x.Shape(); len(s) != 2 || s[0] != g.NumSrc() || s[1] != l.in {
		return nil, fmt.Errorf("tag: %s: features %q have shape %v, want (%d, %d)", name, x.Name(), s, g.NumSrc(), l.in)
	}
	if x.Dtype() != l.cfg.dtype {
		return nil, fmt.Errorf("tag: %s: features have dtype %v, the layer %v", name, x.Dtype(), l.cfg.dtype)
	}
	var err error
	if ew != nil {
		if ew, err = prop.Column(ew); err != nil {
			return nil, err
		}
	}
	hops := gorgonia.Nodes{x}
	h := x
	for range l.cfg.k {
		if ew != nil {
			h, err = prop.Weighted(g, h, ew)
		} else {
			h, err = prop.InSym(g, h)
		}
		if err != nil {
			return nil, fmt.Errorf("tag: %s: %w", name, err)
		}
		hops = append(hops, h)
	}
	if len(hops) > 1 {
		if h, err = gorgonia.Concat(1, hops...); err != nil {
			return nil, err
		}
	}
	if h, err = nn.MatMul(h, l.w); err != nil {
		return nil, err
	}
	if l.b != nil {
		if h, err = nn.AddBias(h, l.b); err != nil {
			return nil, err
		}
	}
	if l.cfg.act != nil {
		return l.cfg.act(h)
	}
	return h, nil
}

var _ nn.WeightedLayer = (*TAGConv)(nil)
