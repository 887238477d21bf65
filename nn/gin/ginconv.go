package gin

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// GINConv is a graph isomorphism network layer. Build it with New.
type GINConv struct {
	in, out int
	cfg     config
	eps     *gorgonia.Node // (1, 1) when learned, else nil
}

// New adds a GINConv to eg for in input features; out is the width of the
// apply function's output, and must equal in when there is none. A learned ε
// starts at WithEps's value; there is nothing random to seed.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*GINConv, error) {
	if err := kit.Sizes(in, out); err != nil {
		return nil, err
	}
	var c config
	if err := kit.Setup(eg, &c, opts); err != nil {
		return nil, err
	}
	if c.apply == nil && in != out {
		return nil, fmt.Errorf("gin: a layer without an apply function needs in == out, got %d and %d", in, out)
	}
	l := &GINConv{in: in, out: out, cfg: c}
	if c.learnEps {
		ps := c.Params(eg)
		if l.eps = ps.Fill("eps", c.eps, 1, 1); ps.Err() != nil {
			return nil, ps.Err()
		}
	}
	return l, nil
}

// Learnables returns ε when it is learned, then the parameters given to
// WithApply, for a Gorgonia solver.
func (l *GINConv) Learnables() gorgonia.Nodes {
	var ps gorgonia.Nodes
	if l.eps != nil {
		ps = append(ps, l.eps)
	}
	return append(ps, l.cfg.params...)
}

// Eps returns the learned ε, a (1, 1) parameter, or nil when ε is fixed.
func (l *GINConv) Eps() *gorgonia.Node { return l.eps }

// Forward applies the layer to source features x (NumSrc x in) on g and
// returns destination features (NumDst x out). On a bipartite graph the
// destination nodes must be the first NumDst source nodes. g may be a
// worker's share of a distributed graph (nn.Sharded, from dist/sar): the
// aggregation then runs over the whole graph.
func (l *GINConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.forward(g, x, nil)
}

// ForwardWeighted is Forward with a weight per edge (a float vector of
// NumEdges elements, or NumEdges x 1) multiplying each message, as DGL's
// edge_weight. On a sharded graph the weights' rows are in nn.Sharded's
// EdgeIDs order, they are constants (no gradient), and the max aggregator
// is not supported.
func (l *GINConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("gin: nil edge weight")
	}
	return l.forward(g, x, edgeWeight)
}

func (l *GINConv) forward(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	name := l.cfg.Name
	if err := l.cfg.CheckInput(g, x, l.in); err != nil {
		return nil, err
	}
	if err := l.cfg.CheckDstFirst(g); err != nil {
		return nil, err
	}
	red := [...]ops.Reducer{Sum: ops.Sum, Mean: ops.Mean, Max: ops.Max}[l.cfg.agg]
	neigh, err := nn.Aggregate(g, red, x, ew)
	if err != nil {
		return nil, fmt.Errorf("gin: %s: %w", name, err)
	}
	self, err := l.scaledSelf(g, x)
	if err != nil {
		return nil, err
	}
	h, err := gorgonia.Add(self, neigh)
	if err != nil {
		return nil, err
	}
	if l.cfg.apply != nil {
		if h, err = l.cfg.apply(h); err != nil {
			return nil, fmt.Errorf("gin: %s: apply function: %w", name, err)
		}
		if h == nil {
			return nil, fmt.Errorf("gin: %s: the apply function returned no node", name)
		}
		if s := h.Shape(); len(s) != 2 || s[0] != g.NumDst() || s[1] != l.out {
			return nil, fmt.Errorf("gin: %s: the apply function returned shape %v, want (%d, %d)", name, s, g.NumDst(), l.out)
		}
	}
	if l.cfg.act != nil {
		if h, err = l.cfg.act(h); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// scaledSelf returns (1 + ε) times the destination rows of x.
func (l *GINConv) scaledSelf(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	self, err := nn.DstRows(g, x)
	if err != nil {
		return nil, err
	}
	switch {
	case l.eps != nil:
		// self + self ⊙ ε, with the (1, 1) ε broadcast over both axes.
		scaled, err := gorgonia.BroadcastHadamardProd(self, l.eps, nil, []byte{0, 1})
		if err != nil {
			return nil, err
		}
		return gorgonia.Add(self, scaled)
	case l.cfg.eps == 0:
		return self, nil
	case l.cfg.Dtype == tensor.Float32:
		return gorgonia.Mul(self, gorgonia.NewConstant(float32(1+l.cfg.eps)))
	default:
		return gorgonia.Mul(self, gorgonia.NewConstant(1+l.cfg.eps))
	}
}

var _ nn.WeightedLayer = (*GINConv)(nil)
