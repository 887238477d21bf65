package tag

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/nn/internal/prop"
)

// TAGConv is a topology adaptive graph convolution. Build it with New.
type TAGConv struct {
	in, out int
	cfg     config
	lin     prop.Linear // ((K+1)*in, out)
}

// New adds a TAGConv with in input and out output features to eg. The
// weight ((K+1)*in, out) is Glorot-uniform initialised with gain sqrt(2)
// (DGL draws it from the Glorot normal distribution of the same
// variance); the bias starts at 0.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*TAGConv, error) {
	c := config{k: 2}
	c.Bias = true
	ps, err := kit.Build(eg, in, out, &c, opts)
	if err != nil {
		return nil, err
	}
	lin := prop.NewLinear(ps, layerkit.ReLUGain, (c.k+1)*in, out, c.Bias)
	return layerkit.Built(&TAGConv{in: in, out: out, cfg: c, lin: lin}, ps)
}

// Learnables returns the weight, then the bias if the layer has one.
func (l *TAGConv) Learnables() gorgonia.Nodes { return l.lin.Learnables() }

// Forward applies the layer to x (N x in) on the homogeneous graph g and
// returns (N, out). g may be a worker's share of a distributed graph
// (nn.Sharded, from dist/sar): the hops then run over the whole graph,
// with its degrees.
func (l *TAGConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.forward(g, x, nil)
}

// ForwardWeighted is Forward with a weight per edge (NumEdges, or
// NumEdges x 1) used as is in place of the degree normalisation, as DGL's
// edge_weight. On a sharded graph the weights' rows are in nn.Sharded's
// EdgeIDs order, and they are constants (no gradient).
func (l *TAGConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("tag: nil edge weight")
	}
	return l.forward(g, x, edgeWeight)
}

func (l *TAGConv) forward(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	name := l.cfg.Name
	if err := l.cfg.CheckHomogeneous(g, x, l.in, "TAGConv"); err != nil {
		return nil, err
	}
	var err error
	if ew != nil {
		if ew, err = prop.Column(ew); err != nil {
			return nil, err
		}
	}
	hops, err := prop.Hops(g, x, ew, l.cfg.k)
	if err != nil {
		return nil, fmt.Errorf("tag: %s: %w", name, err)
	}
	h := x
	if len(hops) > 1 {
		if h, err = gorgonia.Concat(1, hops...); err != nil {
			return nil, err
		}
	}
	return l.lin.Apply(h, l.cfg.Act)
}

var _ nn.WeightedLayer = (*TAGConv)(nil)
