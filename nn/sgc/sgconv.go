package sgc

import (
	"fmt"
	"sync"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/nn/internal/prop"
)

// SGConv is a simplified graph convolution. Build it with New.
type SGConv struct {
	in, out int
	cfg     config
	lin     prop.Linear // (in, out)

	mu    sync.Mutex
	cache map[cacheKey]*gorgonia.Node
}

// cacheKey names what cached features were propagated from.
type cacheKey struct {
	g     uint64
	x, ew *gorgonia.Node
}

// New adds an SGConv with in input and out output features to eg. The
// weight is Glorot-uniform initialised (gain 1, as DGL's xavier_uniform_);
// the bias starts at 0.
func New(eg *gorgonia.ExprGraph, in, out int, opts ...Option) (*SGConv, error) {
	c := config{k: 1}
	c.Bias = true
	ps, err := kit.Build(eg, in, out, &c, opts)
	if err != nil {
		return nil, err
	}
	lin := prop.NewLinear(ps, 1, in, out, c.Bias)
	return layerkit.Built(&SGConv{in: in, out: out, cfg: c, lin: lin}, ps)
}

// Learnables returns the weight, then the bias if the layer has one.
func (l *SGConv) Learnables() gorgonia.Nodes { return l.lin.Learnables() }

// Forward applies the layer to x (N x in) on the homogeneous graph g and
// returns (N, out). SGConv has no sharded (distributed) path: g must be a
// *graph.Graph.
func (l *SGConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	pg, err := nn.Local(g, "sgc: "+l.cfg.Name)
	if err != nil {
		return nil, err
	}
	return l.forward(pg, x, nil)
}

// ForwardWeighted is Forward with a positive weight per edge (NumEdges, or
// NumEdges x 1), normalised as DGL's EdgeWeightNorm("both").
func (l *SGConv) ForwardWeighted(g nn.Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error) {
	if edgeWeight == nil {
		return nil, fmt.Errorf("sgc: nil edge weight")
	}
	pg, err := nn.Local(g, "sgc: "+l.cfg.Name)
	if err != nil {
		return nil, err
	}
	return l.forward(pg, x, edgeWeight)
}

func (l *SGConv) forward(g *graph.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	name := l.cfg.Name
	if err := l.cfg.CheckHomogeneous(g, x, l.in, "SGConv"); err != nil {
		return nil, err
	}
	if err := l.cfg.CheckZeroIn(g, "the bias alone"); err != nil {
		return nil, err
	}
	var h *gorgonia.Node
	var err error
	if l.cfg.cached {
		h, err = l.cached(g, x, ew)
	} else {
		h, err = l.propagate(g, x, ew)
	}
	if err != nil {
		return nil, fmt.Errorf("sgc: %s: %w", name, err)
	}
	return l.lin.Apply(h, nil)
}

// propagate builds the K normalised steps and the feature norm on x.
func (l *SGConv) propagate(g *graph.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	var err error
	if ew != nil {
		if ew, err = prop.Column(ew); err != nil {
			return nil, err
		}
		if ew, err = prop.EdgeWeightNorm(g, ew); err != nil {
			return nil, err
		}
	}
	hops, err := prop.Hops(g, x, ew, l.cfg.k)
	if err != nil {
		return nil, err
	}
	h := hops[l.cfg.k]
	if l.cfg.norm != nil {
		return l.cfg.norm(h)
	}
	return h, nil
}

// cached returns the propagated features of x (and ew) on g as a node of
// x's expression graph holding their value, computed on a graph of its own
// on the first call for these inputs.
func (l *SGConv) cached(g *graph.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	key := cacheKey{g: g.ID(), x: x, ew: ew}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, ok := l.cache[key]; ok {
		return n, nil
	}
	own := gorgonia.NewGraph()
	copyOf := func(n *gorgonia.Node, what string) (*gorgonia.Node, error) {
		if n.Value() == nil {
			return nil, fmt.Errorf("WithCached propagates the %s once, at Forward, but %q has no value yet", what, n.Name())
		}
		return gorgonia.NodeFromAny(own, n.Value(), gorgonia.WithName(what)), nil
	}
	xc, err := copyOf(x, "features")
	if err != nil {
		return nil, err
	}
	var ec *gorgonia.Node
	if ew != nil {
		if ec, err = copyOf(ew, "edge weights"); err != nil {
			return nil, err
		}
	}
	h, err := l.propagate(g, xc, ec)
	if err != nil {
		return nil, err
	}
	vm := gorgonia.NewTapeMachine(own)
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		return nil, err
	}
	v, ok := h.Value().(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("propagated features of type %T", h.Value())
	}
	n := gorgonia.NodeFromAny(x.Graph(), v.Clone().(*tensor.Dense), gorgonia.WithName(fmt.Sprintf("%s.cached%d", l.cfg.Name, len(l.cache)+1)))
	if l.cache == nil {
		l.cache = map[cacheKey]*gorgonia.Node{}
	}
	l.cache[key] = n
	return n, nil
}

var _ nn.WeightedLayer = (*SGConv)(nil)
