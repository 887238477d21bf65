package sage

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/ops"
)

// SAGEConv is a GraphSAGE layer. Build it with New.
type SAGEConv struct {
	in, out        int
	cfg            config
	pool, poolBias *gorgonia.Node // (in, in) and (in), Pool only
	self           *gorgonia.Node // (in, out), Mean and Pool only
	neigh          *gorgonia.Node // (in, out)
	b              *gorgonia.Node // (out) or nil
}

// New adds a SAGEConv with in input and out output features to eg. Weights
// are Glorot-uniform initialised from the seed with gain sqrt(2), as DGL
// does; biases start at 0. Feature dropout needs WithMode.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*SAGEConv, error) {
	var c config
	c.Bias = true
	ps, err := kit.Build(eg, in, out, &c, opts)
	if err != nil {
		return nil, err
	}
	if c.dstIn == 0 {
		c.dstIn = in
	}
	if c.agg == GCN && c.dstIn != in {
		return nil, fmt.Errorf("sage: the gcn aggregator adds destination features (%d wide) to source features (%d wide); they must have one width", c.dstIn, in)
	}
	l := &SAGEConv{in: in, out: out, cfg: c}
	if c.agg == Pool {
		l.pool = ps.Glorot("fc_pool.weight", 2, layerkit.ReLUGain, in, in)
		l.poolBias = ps.Zeros("fc_pool.bias", in)
	}
	if c.agg != GCN {
		l.self = ps.Glorot("fc_self.weight", 1, layerkit.ReLUGain, c.dstIn, out)
	}
	l.neigh = ps.Glorot("fc_neigh.weight", 0, layerkit.ReLUGain, in, out)
	if c.Bias {
		l.b = ps.Zeros("bias", out)
	}
	return layerkit.Built(l, ps)
}

// Learnables returns the layer's parameters for a Gorgonia solver, in the
// order fc_pool.weight, fc_pool.bias (Pool only), fc_self.weight (Mean and
// Pool), fc_neigh.weight, bias (if any).
func (l *SAGEConv) Learnables() gorgonia.Nodes {
	return layerkit.Present(l.pool, l.poolBias, l.self, l.neigh, l.b)
}

// Forward applies the layer to source features x (NumSrc x in) on g and
// returns destination features (NumDst x out). On a bipartite graph the
// destination nodes must be the first NumDst source nodes.
func (l *SAGEConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.forward(g, x, nil, nil)
}

// ForwardBipartite applies the layer to a graph between two node sets,
// with source features src (NumSrc x in) and destination features dst
// (NumDst x the WithDstIn width), as DGL's SAGEConv on a (feat_src,
// feat_dst) pair: the self term reads dst instead of the first source
// rows. It is how HeteroGraphConv runs the layer on a relation between two
// node types.
func (l *SAGEConv) ForwardBipartite(g nn.Graph, src, dst *gorgonia.Node) (*gorgonia.Node, error) {
	if dst == nil {
		return nil, fmt.Errorf("sage: %s: nil destination features", l.cfg.Name)
	}
	return l.forward(g, src, dst, nil)
}

// ForwardWeighted is Forward with a weight per edge (a float vector of
// NumEdges elements, or NumEdges x 1) multiplying each message, as DGL's
// edge_weight.
func (l *SAGEConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("sage: nil edge weight")
	}
	return l.forward(g, x, nil, edgeWeight)
}

// forward runs the layer; xDst is nil for the first NumDst rows of x.
func (l *SAGEConv) forward(g nn.Graph, x, xDst, ew *gorgonia.Node) (*gorgonia.Node, error) {
	name := l.cfg.Name
	if err := l.cfg.CheckInput(g, x, l.in); err != nil {
		return nil, err
	}
	switch {
	case xDst != nil:
		if err := l.cfg.CheckDst(g, xDst, l.cfg.dstIn); err != nil {
			return nil, err
		}
	case l.cfg.dstIn != l.in:
		return nil, fmt.Errorf("sage: %s: the layer takes %d-wide destination features (WithDstIn); use ForwardBipartite", name, l.cfg.dstIn)
	default:
		if err := l.cfg.CheckDstFirst(g); err != nil {
			return nil, err
		}
	}
	h, hDst := x, xDst
	var err error
	if l.cfg.Dropout > 0 {
		if h, err = nn.DropoutOn(g, x, l.cfg.Dropout, l.cfg.Seed*0x9e3779b97f4a7c15+1, l.cfg.Mode); err != nil {
			return nil, err
		}
		if xDst != nil {
			if hDst, err = nn.Dropout(xDst, l.cfg.Dropout, l.cfg.Seed*0x9e3779b97f4a7c15+2, l.cfg.Mode); err != nil {
				return nil, err
			}
		}
	}
	a := aggregation{g: g, ew: ew, dst: hDst}
	var rst *gorgonia.Node
	switch l.cfg.agg {
	case Mean:
		rst, err = l.mean(a, h)
	case GCN:
		rst, err = l.gcn(a, h)
	default:
		rst, err = l.pooled(a, h)
	}
	if err != nil {
		return nil, fmt.Errorf("sage: %s: %w", name, err)
	}
	return l.cfg.Output(rst, nil, l.b, 1, false)
}

// mean is h_dst W_self + mean(h_u) W_neigh, multiplying by W_neigh before
// aggregating when the aggregation then gathers fewer cache lines
// (nn.ProjectFirst).
func (l *SAGEConv) mean(a aggregation, h *gorgonia.Node) (*gorgonia.Node, error) {
	src, early, err := l.projectFirst(h)
	if err != nil {
		return nil, err
	}
	neigh, err := a.reduce(ops.Mean, src)
	if err != nil {
		return nil, err
	}
	if !early {
		if neigh, err = nn.MatMul(neigh, l.neigh); err != nil {
			return nil, err
		}
	}
	return l.plusSelf(a, h, neigh)
}

// gcn is (h_dst + sum(h_u)) / (deg + 1) W_neigh, multiplying by W_neigh
// first when the aggregation then gathers fewer cache lines
// (nn.ProjectFirst).
func (l *SAGEConv) gcn(a aggregation, h *gorgonia.Node) (*gorgonia.Node, error) {
	src, early, err := l.projectFirst(h)
	if err != nil {
		return nil, err
	}
	inv, err := invDegreePlusOne(a.g, h)
	if err != nil {
		return nil, err
	}
	sum, err := a.reduce(ops.Sum, src)
	if err != nil {
		return nil, err
	}
	dst, err := a.dstRows(src)
	if err != nil {
		return nil, err
	}
	if a.dst != nil && early {
		if dst, err = nn.MatMul(a.dst, l.neigh); err != nil {
			return nil, err
		}
	}
	if sum, err = gorgonia.Add(sum, dst); err != nil {
		return nil, err
	}
	if sum, err = gorgonia.BroadcastHadamardProd(sum, inv, nil, []byte{1}); err != nil {
		return nil, err
	}
	if early {
		return sum, nil
	}
	return nn.MatMul(sum, l.neigh)
}

// pooled is h_dst W_self + max(ReLU(h_u W_pool + b_pool)) W_neigh.
func (l *SAGEConv) pooled(a aggregation, h *gorgonia.Node) (*gorgonia.Node, error) {
	p, err := nn.MatMul(h, l.pool)
	if err != nil {
		return nil, err
	}
	if p, err = nn.AddBias(p, l.poolBias); err != nil {
		return nil, err
	}
	if p, err = nn.ReLU(p); err != nil {
		return nil, err
	}
	m, err := a.reduce(ops.Max, p)
	if err != nil {
		return nil, err
	}
	if m, err = nn.MatMul(m, l.neigh); err != nil {
		return nil, err
	}
	return l.plusSelf(a, h, m)
}

// projectFirst returns h W_neigh and true when multiplying by W_neigh
// before aggregating gathers fewer cache lines (nn.ProjectFirst), h and
// false otherwise.
func (l *SAGEConv) projectFirst(h *gorgonia.Node) (*gorgonia.Node, bool, error) {
	if !nn.ProjectFirst(l.in, l.out, l.cfg.Dtype) {
		return h, false, nil
	}
	src, err := nn.MatMul(h, l.neigh)
	return src, true, err
}

// plusSelf returns h_dst W_self + neigh.
func (l *SAGEConv) plusSelf(a aggregation, h, neigh *gorgonia.Node) (*gorgonia.Node, error) {
	dst, err := a.dstRows(h)
	if err != nil {
		return nil, err
	}
	self, err := nn.MatMul(dst, l.self)
	if err != nil {
		return nil, err
	}
	return gorgonia.Add(self, neigh)
}

// aggregation reduces messages over the in-edges of g, each source row
// multiplied by its edge's weight when ew is not nil.
type aggregation struct {
	g   nn.Graph
	ew  *gorgonia.Node
	dst *gorgonia.Node // the destination features, or nil for rows of the sources
}

// dstRows returns the destination features: a.dst, or the first NumDst
// rows of h.
func (a aggregation) dstRows(h *gorgonia.Node) (*gorgonia.Node, error) {
	if a.dst != nil {
		return a.dst, nil
	}
	return nn.DstRows(a.g, h)
}

// reduce aggregates u (nn.Aggregate); on a sharded graph edge weights go
// with the sum and the mean only.
func (a aggregation) reduce(red ops.Reducer, u *gorgonia.Node) (*gorgonia.Node, error) {
	return nn.Aggregate(a.g, red, u, a.ew)
}

// invDegreePlusOne returns a constant (NumDst, 1) column of 1/(in-degree+1)
// in like's dtype, named after the graph so that layers sharing the graph
// share the node. On a Sharded graph the degrees are the whole graph's.
func invDegreePlusOne(g nn.Graph, like *gorgonia.Node) (*gorgonia.Node, error) {
	deg, err := nn.InDegrees(g, "the gcn aggregator")
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("sage.inv_in_degree_plus_1.%p", g)
	if pg, ok := g.(*graph.Graph); ok {
		name = fmt.Sprintf("sage.inv_in_degree_plus_1.g%d", pg.ID())
	}
	var backing any
	if like.Dtype() == tensor.Float32 {
		v := make([]float32, len(deg))
		for i, d := range deg {
			v[i] = float32(1 / float64(d+1))
		}
		backing = v
	} else {
		v := make([]float64, len(deg))
		for i, d := range deg {
			v[i] = 1 / float64(d+1)
		}
		backing = v
	}
	t := tensor.New(tensor.WithShape(len(deg), 1), tensor.WithBacking(backing))
	return gorgonia.NodeFromAny(like.Graph(), t, gorgonia.WithName(name)), nil
}

var _ nn.WeightedLayer = (*SAGEConv)(nil)

var _ nn.BipartiteLayer = (*SAGEConv)(nil)
