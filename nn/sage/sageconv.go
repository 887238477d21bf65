package sage

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
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
	if eg == nil {
		return nil, fmt.Errorf("sage: nil expression graph")
	}
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("sage: feature sizes must be positive, got in %d, out %d", in, out)
	}
	c := config{bias: true, dtype: tensor.Float32}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.featDrop > 0 && c.mode == nil {
		return nil, fmt.Errorf("sage: dropout needs WithMode")
	}
	if c.dstIn == 0 {
		c.dstIn = in
	}
	if c.agg == GCN && c.dstIn != in {
		return nil, fmt.Errorf("sage: the gcn aggregator adds destination features (%d wide) to source features (%d wide); they must have one width", c.dstIn, in)
	}
	if c.name == "" {
		c.name = nn.UniqueName(eg, "sage")
	}
	if !c.seedSet {
		c.seed = nn.SeedOf(c.name)
	}
	l := &SAGEConv{in: in, out: out, cfg: c}
	param := func(suffix string, k uint64, shape ...int) (*gorgonia.Node, error) {
		name := c.name + "." + suffix
		v, err := nn.Initial(c.values, name, c.dtype, shape, func() (*tensor.Dense, error) {
			return nn.Glorot(c.dtype, nn.ParamSeed(c.seed, k), math.Sqrt2, shape...)
		})
		if err != nil {
			return nil, err
		}
		return nn.Param(eg, name, v), nil
	}
	zeros := func(suffix string, n int) *gorgonia.Node {
		name := c.name + "." + suffix
		v, _ := nn.Initial(c.values, name, c.dtype, []int{n}, func() (*tensor.Dense, error) { return nn.Zeros(c.dtype, n), nil })
		return nn.Param(eg, name, v)
	}
	var err error
	if c.agg == Pool {
		if l.pool, err = param("fc_pool.weight", 2, in, in); err != nil {
			return nil, err
		}
		l.poolBias = zeros("fc_pool.bias", in)
	}
	if c.agg != GCN {
		if l.self, err = param("fc_self.weight", 1, c.dstIn, out); err != nil {
			return nil, err
		}
	}
	if l.neigh, err = param("fc_neigh.weight", 0, in, out); err != nil {
		return nil, err
	}
	if c.bias {
		l.b = zeros("bias", out)
	}
	return l, nil
}

// Learnables returns the layer's parameters for a Gorgonia solver, in the
// order fc_pool.weight, fc_pool.bias (Pool only), fc_self.weight (Mean and
// Pool), fc_neigh.weight, bias (if any).
func (l *SAGEConv) Learnables() gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, p := range []*gorgonia.Node{l.pool, l.poolBias, l.self, l.neigh, l.b} {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return ps
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
		return nil, fmt.Errorf("sage: %s: nil destination features", l.cfg.name)
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
	name := l.cfg.name
	if nn.IsNil(g) || x == nil {
		return nil, fmt.Errorf("sage: %s: Forward needs a graph and features", name)
	}
	if xDst != nil {
		if s := xDst.Shape(); len(s) != 2 || s[0] != g.NumDst() || s[1] != l.cfg.dstIn {
			return nil, fmt.Errorf("sage: %s: destination features %q have shape %v, want (%d, %d)", name, xDst.Name(), s, g.NumDst(), l.cfg.dstIn)
		}
		if xDst.Dtype() != l.cfg.dtype {
			return nil, fmt.Errorf("sage: %s: destination features have dtype %v, the layer %v", name, xDst.Dtype(), l.cfg.dtype)
		}
	} else if l.cfg.dstIn != l.in {
		return nil, fmt.Errorf("sage: %s: the layer takes %d-wide destination features (WithDstIn); use ForwardBipartite", name, l.cfg.dstIn)
	}
	if xDst == nil && g.NumDst() > g.NumSrc() {
		return nil, fmt.Errorf("sage: %s: graph has %d destination nodes but %d sources; the destinations must be the first NumDst sources", name, g.NumDst(), g.NumSrc())
	}
	if s := x.Shape(); len(s) != 2 || s[0] != g.NumSrc() || s[1] != l.in {
		return nil, fmt.Errorf("sage: %s: features %q have shape %v, want (%d, %d)", name, x.Name(), s, g.NumSrc(), l.in)
	}
	if x.Dtype() != l.cfg.dtype {
		return nil, fmt.Errorf("sage: %s: features have dtype %v, the layer %v", name, x.Dtype(), l.cfg.dtype)
	}
	h, hDst := x, xDst
	var err error
	if l.cfg.featDrop > 0 {
		if h, err = nn.DropoutOn(g, x, l.cfg.featDrop, l.cfg.seed*0x9e3779b97f4a7c15+1, l.cfg.mode); err != nil {
			return nil, err
		}
		if xDst != nil {
			if hDst, err = nn.Dropout(xDst, l.cfg.featDrop, l.cfg.seed*0x9e3779b97f4a7c15+2, l.cfg.mode); err != nil {
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
	if l.b != nil {
		if rst, err = nn.AddBias(rst, l.b); err != nil {
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

// mean is h_dst W_self + mean(h_u) W_neigh, multiplying by W_neigh before
// aggregating when the aggregation then gathers fewer cache lines
// (nn.ProjectFirst).
func (l *SAGEConv) mean(a aggregation, h *gorgonia.Node) (*gorgonia.Node, error) {
	early := nn.ProjectFirst(l.in, l.out, l.cfg.dtype)
	src := h
	var err error
	if early {
		if src, err = nn.MatMul(h, l.neigh); err != nil {
			return nil, err
		}
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
	early := nn.ProjectFirst(l.in, l.out, l.cfg.dtype)
	src := h
	var err error
	if early {
		if src, err = nn.MatMul(h, l.neigh); err != nil {
			return nil, err
		}
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
