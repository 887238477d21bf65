package bench

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/train"
)

// GATConfig sets a two-layer GAT (Veličković et al., ICLR 2018): input ->
// Heads x Hidden (concatenated, ELU) -> classes (OutHeads averaged).
type GATConfig struct {
	Hidden      int // per head
	Heads       int
	OutHeads    int
	Dropout     float64 // feature and attention dropout of both layers; 0: none
	Slope       float64 // LeakyReLU negative slope of the attention
	WeightDecay float64
	LR          float64
	Seed        uint64
	Recompute   bool // the fused layers recompute the attention (gat.WithRecompute)
}

// DefaultGATConfig returns the paper's configuration for Cora with the
// given sizes: dropout 0.6 (when dropout is set), slope 0.2, weight decay
// 5e-4, learning rate 0.005.
func DefaultGATConfig(hidden, heads, outHeads int, dropout bool) GATConfig {
	c := GATConfig{Hidden: hidden, Heads: heads, OutHeads: outHeads, Slope: 0.2, WeightDecay: 5e-4, LR: 0.005, Seed: 1}
	if dropout {
		c.Dropout = 0.6
	}
	return c
}

// check reports sizes of cfg that the model named model cannot build.
func (c GATConfig) check(model string) error {
	if c.Hidden <= 0 || c.Heads <= 0 || c.OutHeads <= 0 {
		return fmt.Errorf("bench: %s: hidden %d, heads %d and output heads %d must be positive", model, c.Hidden, c.Heads, c.OutHeads)
	}
	return nil
}

// attnLayer is one of a GATConfig's two layers: its sizes (out per head),
// heads and seed, its activation, and whether it averages its heads.
type attnLayer struct {
	in, out, heads int
	seed           uint64
	act            nn.Activation
	mean           bool
}

// layers returns the two layers of cfg on d: Heads x Hidden concatenated
// with ELU, then the classes with OutHeads averaged. BuildGAT and
// BuildGATv2 build these.
func (c GATConfig) layers(d *Data) [2]attnLayer {
	return [2]attnLayer{
		{in: d.Feat, out: c.Hidden, heads: c.Heads, seed: c.Seed, act: nn.ELU},
		{in: c.Hidden * c.Heads, out: d.Classes, heads: c.OutHeads, seed: c.Seed + 10, mean: true},
	}
}

// attender computes GAT's attention over a graph and aggregates: from
// projected features z (N, H, F) and per-node logits el (source side) and
// er (destination side), both (N, H, 1), it returns sum over the in-edges
// u -> v of softmax_v(LeakyReLU(el_u + er_v)) z_u, shaped (N, H, F).
type attender func(z, el, er *gorgonia.Node) (*gorgonia.Node, error)

// BuildGAT builds a two-layer GAT on d along the given path (Fused,
// Unfused or Dense; see the package documentation). The unfused and dense
// models use the parameters of nn/gat layers and compute what GATConv
// computes (no residual, bias, mean of the output heads).
func BuildGAT(path string, d *Data, cfg GATConfig) (*Task, error) {
	if err := cfg.check("gat"); err != nil {
		return nil, err
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	g := d.Graph
	p := cfg.Dropout
	specs := cfg.layers(d)
	var ls [2]*gat.GATConv
	for i, s := range specs {
		var err error
		if ls[i], err = gat.New(eg, s.in, s.out, gat.WithName(fmt.Sprintf("gat%d", i+1)), gat.WithHeads(s.heads), gat.WithMode(mode),
			gat.WithFeatDropout(p), gat.WithAttnDropout(p), gat.WithNegativeSlope(cfg.Slope), gat.WithActivation(s.act), gat.WithMeanHeads(s.mean), gat.WithSeed(s.seed), gat.WithRecompute(cfg.Recompute)); err != nil {
			return nil, err
		}
	}
	l1, l2 := ls[0], ls[1]
	in, err := newInput(eg, d)
	if err != nil {
		return nil, err
	}
	var logits *gorgonia.Node
	switch path {
	case Fused:
		var h *gorgonia.Node
		if in.sparse != nil {
			h, err = l1.ForwardSparse(g, in.sparse)
		} else {
			h, err = l1.Forward(g, in.dense)
		}
		if err != nil {
			return nil, err
		}
		if logits, err = l2.Forward(g, h); err != nil {
			return nil, err
		}
	case Unfused, Dense:
		att := func(layer int) (attender, error) {
			seed := cfg.Seed + 1000*uint64(layer)
			if path == Unfused {
				return unfusedGAT(g, cfg.Slope, p, seed, mode), nil
			}
			return denseGAT(eg, g, cfg.Slope, p, seed, mode)
		}
		a1, err := att(1)
		if err != nil {
			return nil, err
		}
		s1, s2 := specs[0], specs[1]
		h, err := gatLayer(a1, in, l1.Learnables(), s1.heads, s1.out, p, cfg.Seed+100, mode, s1.mean, s1.act)
		if err != nil {
			return nil, err
		}
		a2, err := att(2)
		if err != nil {
			return nil, err
		}
		if logits, err = gatLayer(a2, input{dense: h}, l2.Learnables(), s2.heads, s2.out, p, cfg.Seed+200, mode, s2.mean, s2.act); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("bench: unknown path %q", path)
	}
	return classify(d, logits, mode, cfg.LR, train.Group{Params: append(l1.Learnables(), l2.Learnables()...), WeightDecay: cfg.WeightDecay})
}

// gatLayer is GATConv's computation with attention att and the parameters
// ps ("*.weight" (in, H*F), "*.attn_l" and "*.attn_r" (1, H, F),
// "*.bias" (H*F)): feature dropout, projection, attention, bias, the mean
// of the heads when mean is set, and the activation.
func gatLayer(att attender, x input, ps gorgonia.Nodes, heads, f int, drop float64, seed uint64, mode *nn.Mode, mean bool, act func(*gorgonia.Node) (*gorgonia.Node, error)) (*gorgonia.Node, error) {
	var w, al, ar, b *gorgonia.Node
	for _, q := range []struct {
		p      **gorgonia.Node
		suffix string
	}{{&w, ".weight"}, {&al, ".attn_l"}, {&ar, ".attn_r"}, {&b, ".bias"}} {
		var err error
		if *q.p, err = param(ps, q.suffix); err != nil {
			return nil, err
		}
	}
	x, err := x.dropout(drop, seed, mode)
	if err != nil {
		return nil, err
	}
	flat, err := x.matmul(w) // (N, H*F)
	if err != nil {
		return nil, err
	}
	n := flat.Shape()[0]
	z, err := gorgonia.Reshape(flat, tensor.Shape{n, heads, f})
	if err != nil {
		return nil, err
	}
	el, err := headScores(z, al, n, heads)
	if err != nil {
		return nil, err
	}
	er, err := headScores(z, ar, n, heads)
	if err != nil {
		return nil, err
	}
	rst, err := att(z, el, er)
	if err != nil {
		return nil, err
	}
	if rst, err = gorgonia.Reshape(rst, tensor.Shape{n, heads * f}); err != nil {
		return nil, err
	}
	if rst, err = gorgonia.BroadcastAdd(rst, b, nil, []byte{0}); err != nil {
		return nil, err
	}
	if mean && heads > 1 {
		if rst, err = gorgonia.Reshape(rst, tensor.Shape{n, heads, f}); err != nil {
			return nil, err
		}
		if rst, err = gorgonia.Mean(rst, 1); err != nil {
			return nil, err
		}
	}
	if act != nil {
		return act(rst)
	}
	return rst, nil
}

// headScores returns (N, H, 1): for every node and head, the dot product
// of its projected features (N, H, F) with the head's attention vector
// (1, H, F), as GATConv computes it.
func headScores(z, a *gorgonia.Node, n, h int) (*gorgonia.Node, error) {
	p, err := gorgonia.BroadcastHadamardProd(z, a, nil, []byte{0})
	if err != nil {
		return nil, err
	}
	s, err := gorgonia.Sum(p, 2)
	if err != nil {
		return nil, err
	}
	return gorgonia.Reshape(s, tensor.Shape{n, h, 1})
}
