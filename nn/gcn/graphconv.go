package gcn

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/ops"
)

// GraphConv is a graph convolution layer. Build it with New.
type GraphConv struct {
	in, out int
	cfg     config
	w, b    *gorgonia.Node // nil when disabled
}

// New adds a GraphConv with in input and out output features to eg. The
// weight is Glorot-uniform initialised from the seed; the bias starts at 0.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*GraphConv, error) {
	c := config{weight: true}
	c.Bias = true
	ps, err := kit.Build(eg, in, out, &c, opts)
	if err != nil {
		return nil, err
	}
	if !c.weight && in != out {
		return nil, fmt.Errorf("gcn: a layer without weight needs in == out, got %d and %d", in, out)
	}
	l := &GraphConv{in: in, out: out, cfg: c}
	if c.weight {
		l.w = ps.Glorot("weight", 0, 1, in, out)
	}
	if c.Bias {
		l.b = ps.Zeros("bias", out)
	}
	return layerkit.Built(l, ps)
}

// Learnables returns the layer's parameters (weight, then bias, where
// present), for a Gorgonia solver.
func (l *GraphConv) Learnables() gorgonia.Nodes {
	return layerkit.Present(l.w, l.b)
}

// Weight returns the weight parameter, or nil.
func (l *GraphConv) Weight() *gorgonia.Node { return l.w }

// Forward applies the layer to source features x (NumSrc x in) on g and
// returns destination features (NumDst x out). g is a *graph.Graph or a
// worker's share of a distributed graph (nn.Sharded, from dist/sar).
func (l *GraphConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.forward(g, x, nil)
}

// ForwardWeighted is Forward with a weight per edge (a float vector of
// NumEdges elements, or NumEdges x 1) multiplying each message, as DGL's
// edge_weight.
func (l *GraphConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("gcn: nil edge weight")
	}
	return l.forward(g, x, edgeWeight)
}

func (l *GraphConv) forward(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if err := l.cfg.CheckInput(g, x, l.in); err != nil {
		return nil, err
	}
	if err := l.checkGraph(g); err != nil {
		return nil, err
	}
	h := x
	var err error
	// Multiply by W first when the aggregation then gathers fewer cache
	// lines per edge (nn.ProjectFirst).
	early := l.w != nil && nn.ProjectFirst(l.in, l.out, l.cfg.Dtype)
	if early {
		if h, err = nn.MatMul(h, l.w); err != nil {
			return nil, err
		}
	}
	return l.propagate(g, h, ew, early)
}

// propagate normalises and aggregates h over g, then applies the weight
// (unless multiplied is set: h already is x W), the bias and the activation.
func (l *GraphConv) propagate(g nn.Graph, h, ew *gorgonia.Node, multiplied bool) (*gorgonia.Node, error) {
	var src, dst float64 // degree powers of the norm
	switch l.cfg.norm {
	case Both:
		src, dst = -0.5, -0.5
	case Left:
		src = -1
	case Right:
		dst = -1
	}
	var err error
	switch {
	case ew == nil && (src != 0 || dst != 0):
		h, err = nn.NormalizedSum(g, h, src, dst)
	case ew == nil:
		h, err = copyUSum(g, h)
	default:
		h, err = l.weightedSum(g, h, ew, src, dst)
	}
	if err != nil {
		return nil, fmt.Errorf("gcn: %s: %w", l.cfg.Name, err)
	}
	if l.w != nil && !multiplied {
		if h, err = nn.MatMul(h, l.w); err != nil {
			return nil, err
		}
	}
	return l.cfg.Output(h, nil, l.b, 1, false)
}

// weightedSum is the normalised aggregation with a weight per edge: the
// source rows scaled by out-degree^src, summed with the edge weights ew,
// scaled by in-degree^dst.
func (l *GraphConv) weightedSum(g nn.Graph, h, ew *gorgonia.Node, src, dst float64) (*gorgonia.Node, error) {
	return nn.On(g, nn.NormSum{Src: src, Dst: dst}, h, ew)
}

// copyUSum is ops.CopyUSum on a *graph.Graph, the plain sum of a sharded
// graph.
func copyUSum(g nn.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	if pg, ok := g.(*graph.Graph); ok {
		return ops.CopyUSum(pg, h)
	}
	return nn.NormalizedSum(g, h, 0, 0)
}

// checkGraph applies the zero in-degree rule.
func (l *GraphConv) checkGraph(g nn.Graph) error { return l.cfg.CheckZeroIn(g, "the bias alone") }

var _ nn.WeightedLayer = (*GraphConv)(nil)
