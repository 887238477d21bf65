package bench

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

// GCNConfig sets a two-layer GCN (Kipf and Welling, ICLR 2017): input ->
// Hidden (ReLU) -> classes, normalised D^-1/2 (A+I) D^-1/2.
type GCNConfig struct {
	Hidden      int
	Dropout     float64 // on the input and on the hidden features; 0: none
	WeightDecay float64 // L2 on the first layer, as in the paper
	LR          float64 // Adam
	Seed        uint64
}

// DefaultGCNConfig returns the paper's configuration with the given hidden
// size: dropout 0.5 (when dropout is set), weight decay 5e-4, learning
// rate 0.01.
func DefaultGCNConfig(hidden int, dropout bool) GCNConfig {
	c := GCNConfig{Hidden: hidden, WeightDecay: 5e-4, LR: 0.01, Seed: 1}
	if dropout {
		c.Dropout = 0.5
	}
	return c
}

// BuildGCN builds a two-layer GCN on d along the given path (Fused,
// Unfused or Dense; see the package documentation). The paths share the
// parameters' initialisation: the unfused and dense models use the
// parameters of nn/gcn layers and compute what GraphConv computes, with
// the weight applied before the aggregation when nn.ProjectFirst says so
// (or the input is sparse).
func BuildGCN(path string, d *Data, cfg GCNConfig) (*Task, error) {
	if cfg.Hidden <= 0 {
		return nil, fmt.Errorf("bench: gcn: hidden size %d", cfg.Hidden)
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	g := d.Graph
	l1, err := gcn.New(eg, d.Feat, cfg.Hidden, gcn.WithName("gcn1"), gcn.WithSeed(cfg.Seed), gcn.WithActivation(nn.ReLU))
	if err != nil {
		return nil, err
	}
	l2, err := gcn.New(eg, cfg.Hidden, d.Classes, gcn.WithName("gcn2"), gcn.WithSeed(cfg.Seed+1))
	if err != nil {
		return nil, err
	}
	in, err := newInput(eg, d)
	if err != nil {
		return nil, err
	}
	if in, err = in.dropout(cfg.Dropout, cfg.Seed+2, mode); err != nil {
		return nil, err
	}
	var prop propagator
	switch path {
	case Fused:
	case Unfused:
		prop, err = unfusedGCN(eg, g)
	case Dense:
		prop, err = denseGCN(eg, g)
	default:
		err = fmt.Errorf("bench: unknown path %q", path)
	}
	if err != nil {
		return nil, err
	}
	layer := func(l *gcn.GraphConv, x input, in, out int, act func(*gorgonia.Node) (*gorgonia.Node, error)) (*gorgonia.Node, error) {
		if prop == nil {
			if x.sparse != nil {
				return l.ForwardSparse(g, x.sparse)
			}
			return l.Forward(g, x.dense)
		}
		return gcnLayer(prop, x, in, out, l.Learnables(), act)
	}
	h, err := layer(l1, in, d.Feat, cfg.Hidden, gorgonia.Rectify)
	if err != nil {
		return nil, err
	}
	if cfg.Dropout > 0 {
		if h, err = nn.Dropout(h, cfg.Dropout, cfg.Seed+3, mode); err != nil {
			return nil, err
		}
	}
	logits, err := layer(l2, input{dense: h}, cfg.Hidden, d.Classes, nil)
	if err != nil {
		return nil, err
	}
	return classify(d, logits, mode, cfg.LR, train.Group{Params: l1.Learnables(), WeightDecay: cfg.WeightDecay}, train.Group{Params: l2.Learnables()})
}

// propagator computes D^-1/2 (A+I) D^-1/2 h for one GCN layer.
type propagator func(h *gorgonia.Node) (*gorgonia.Node, error)

// gcnLayer is GraphConv's computation with propagation prop and the
// parameters ps (a weight "*.weight" of in x out and a bias "*.bias").
func gcnLayer(prop propagator, x input, in, out int, ps gorgonia.Nodes, act func(*gorgonia.Node) (*gorgonia.Node, error)) (*gorgonia.Node, error) {
	w, err := param(ps, ".weight")
	if err != nil {
		return nil, err
	}
	b, err := param(ps, ".bias")
	if err != nil {
		return nil, err
	}
	early := x.sparse != nil || nn.ProjectFirst(in, out, tensor.Float32)
	h := x.dense
	if early {
		if h, err = x.matmul(w); err != nil {
			return nil, err
		}
	}
	if h, err = prop(h); err != nil {
		return nil, err
	}
	if !early {
		if h, err = gorgonia.Mul(h, w); err != nil {
			return nil, err
		}
	}
	if h, err = gorgonia.BroadcastAdd(h, b, nil, []byte{0}); err != nil {
		return nil, err
	}
	if act != nil {
		return act(h)
	}
	return h, nil
}

// edgeNorms returns 1/sqrt(outdeg(u) indeg(v)) for every edge u -> v of g,
// degrees clamped to 1 (GraphConv's "both" normalisation, per edge).
func edgeNorms(g *graph.Graph) []float32 {
	out, in := g.OutDegrees(), g.InDegrees()
	src, dst := g.COO()
	w := make([]float32, len(src))
	for e := range src {
		w[e] = float32(1 / math.Sqrt(float64(max(out[src[e]], 1))*float64(max(in[dst[e]], 1))))
	}
	return w
}
