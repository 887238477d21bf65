package appnp

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/prop"
)

// APPNPConv is approximate personalized-PageRank propagation. Build it with
// New.
type APPNPConv struct {
	k     int
	alpha float64
	cfg   config
}

// New returns an APPNPConv of k propagation steps with teleport
// probability alpha (DGL's k and alpha; the paper uses 10 and 0.1).
func New(k int, alpha float64, opts ...Option) (*APPNPConv, error) {
	if k < 1 {
		return nil, fmt.Errorf("appnp: %d propagation steps, want at least 1", k)
	}
	if !(alpha >= 0 && alpha <= 1) {
		return nil, fmt.Errorf("appnp: teleport probability %v is not in [0, 1]", alpha)
	}
	var c config
	if err := kit.Apply(&c, opts); err != nil {
		return nil, err
	}
	if c.edgeDrop > 0 && c.Mode == nil {
		return nil, fmt.Errorf("appnp: edge dropout needs WithMode")
	}
	return &APPNPConv{k: k, alpha: alpha, cfg: c}, nil
}

// Learnables returns nothing: APPNP has no parameters. It is there so that
// the layer fits where other layers do.
func (l *APPNPConv) Learnables() gorgonia.Nodes { return nil }

// Forward propagates x (N x F) on the homogeneous graph g and returns
// (N, F). g may be a worker's share of a distributed graph (nn.Sharded,
// from dist/sar): the propagation then runs over the whole graph, with its
// degrees; edge dropout has no sharded path.
func (l *APPNPConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.forward(g, x, nil)
}

// ForwardWeighted is Forward with a weight per edge (NumEdges, or
// NumEdges x 1) used as is in place of the degree normalisation, as DGL's
// edge_weight: normalise the weights first if needed.
func (l *APPNPConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("appnp: nil edge weight")
	}
	return l.forward(g, x, edgeWeight)
}

func (l *APPNPConv) forward(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if nn.IsNil(g) || x == nil {
		return nil, fmt.Errorf("appnp: Forward needs a graph and features")
	}
	l.settle(x.Graph())
	name := l.cfg.Name
	if l.cfg.edgeDrop > 0 {
		if _, err := nn.Local(g, "edge dropout"); err != nil {
			return nil, fmt.Errorf("appnp: %s: %w", name, err)
		}
	}
	if g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("appnp: %s: graph has %d source and %d destination nodes; APPNP needs a homogeneous graph", name, g.NumSrc(), g.NumDst())
	}
	if s := x.Shape(); len(s) != 2 || s[0] != g.NumSrc() {
		return nil, fmt.Errorf("appnp: %s: features %q have shape %v, want (%d, F)", name, x.Name(), s, g.NumSrc())
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("appnp: %s: features have dtype %v, want float32 or float64", name, dt)
	}
	w := ew
	if l.cfg.edgeDrop > 0 && w == nil && g.NumEdges() > 0 {
		pg, err := nn.Local(g, "APPNP's edge dropout")
		if err != nil {
			return nil, fmt.Errorf("appnp: %s: %w", name, err)
		}
		w = l.ones(pg, x)
	}
	h := x
	for step := range l.k {
		wk := w
		var err error
		if l.cfg.edgeDrop > 0 && w != nil {
			if wk, err = nn.Dropout(w, l.cfg.edgeDrop, nn.ParamSeed(l.cfg.Seed, uint64(step)), l.cfg.Mode); err != nil {
				return nil, err
			}
		}
		switch {
		case ew != nil:
			h, err = prop.Weighted(g, h, wk)
		default:
			h, err = prop.Sym(g, h, wk)
		}
		if err != nil {
			return nil, fmt.Errorf("appnp: %s: %w", name, err)
		}
		if h, err = nn.Combine([]float64{1 - l.alpha, l.alpha}, h, x); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// settle names an unnamed layer after the layers already in eg, on its
// first Forward (the layer has no parameters, so New needs no expression
// graph), and derives its dropout seed from the name unless one was given.
func (l *APPNPConv) settle(eg *gorgonia.ExprGraph) { l.cfg.Finish(eg, "appnp") }

// ones returns a column of one weight per edge in x's dtype, what edge
// dropout drops when the caller gives no weights.
func (l *APPNPConv) ones(g *graph.Graph, x *gorgonia.Node) *gorgonia.Node {
	n := g.NumEdges()
	var backing any
	if x.Dtype() == tensor.Float32 {
		b := make([]float32, n)
		for i := range b {
			b[i] = 1
		}
		backing = b
	} else {
		b := make([]float64, n)
		for i := range b {
			b[i] = 1
		}
		backing = b
	}
	t := tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(backing))
	return gorgonia.NodeFromAny(x.Graph(), t, gorgonia.WithName(fmt.Sprintf("%s.ones.g%d", l.cfg.Name, g.ID())))
}

var _ nn.WeightedLayer = (*APPNPConv)(nil)
