package gat

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Option configures a GATConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	heads     int
	attnDrop  float64
	slope     float64
	residual  bool
	meanHeads bool
	edgeDim   int
	dstIn     int // 0: no destination projection of its own
	recompute bool
}

var kit = layerkit.Kit[*config, Option]{Pkg: "gat"}

// WithDstIn gives the layer a destination projection of its own, fc_dst
// (n, H*out), for ForwardBipartite's destination features of n columns
// (DGL's in_feats pair (in, n)), for relations between two node types.
// Without it ForwardBipartite projects both sides with the one weight, as
// DGL does for an int in_feats, and the destination features must have in
// columns. With WithResidual the residual reads the destination features
// (projected when n != H*out).
func WithDstIn(n int) Option {
	return kit.AtLeast("destination width", n, 1, func(c *config) *int { return &c.dstIn })
}

// WithHeads sets the number of attention heads (default 1).
func WithHeads(h int) Option {
	return kit.AtLeast("heads", h, 1, func(c *config) *int { return &c.heads })
}

// WithFeatDropout sets the dropout probability on the input features
// (default 0). Dropout needs WithMode.
func WithFeatDropout(p float64) Option { return kit.Dropout(p) }

// WithAttnDropout sets the dropout probability on the attention weights
// (default 0). Dropout needs WithMode.
func WithAttnDropout(p float64) Option {
	return kit.Probability("attention dropout", p, func(c *config) *float64 { return &c.attnDrop })
}

// WithNegativeSlope sets the LeakyReLU slope of the attention (default 0.2).
func WithNegativeSlope(s float64) Option {
	return kit.NonNegative("negative slope", s, func(c *config) *float64 { return &c.slope })
}

// WithResidual adds the input to the output: as is when in == heads*out,
// through a learned projection otherwise (default off).
func WithResidual(on bool) Option { return func(c *config) error { c.residual = on; return nil } }

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return kit.Bias(on) }

// WithMeanHeads averages the heads instead of concatenating them (the
// output layer of the paper).
func WithMeanHeads(on bool) Option { return func(c *config) error { c.meanHeads = on; return nil } }

// WithEdgeFeatures gives the attention a term from d-dimensional edge
// features (PyG's GATConv edge_dim): a_e · (ef_uv W_e) per head, added to
// the logit before the LeakyReLU. The layer then runs with ForwardEdges.
// 0, the default, means none.
func WithEdgeFeatures(d int) Option {
	return kit.AtLeast("edge feature size", d, 0, func(c *config) *int { return &c.edgeDim })
}

// WithActivation sets the output activation (default none).
func WithActivation(f nn.Activation) Option { return kit.Activation(f) }

// WithAllowZeroInDegree lets Forward run on graphs with nodes that have no
// in-edges (they get only the residual and bias); by default it is an error.
// A graph without any edge stays an error.
func WithAllowZeroInDegree(on bool) Option { return kit.AllowZeroInDegree(on) }

// WithMode sets the training/evaluation switch the dropouts follow.
func WithMode(m *nn.Mode) Option { return kit.Mode(m) }

// WithName sets the prefix of the parameter names (default a unique "gat<k>").
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of initialisation and dropout (default: derived from the layer name, so unseeded layers differ).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }

// WithDtype sets the parameters' dtype (default float32).
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }

// WithValues makes the layer start each parameter from values' tensor of
// its name instead of drawing one (see nn.Values); a tensor of another
// dtype or shape is an error. A model rebuilt on every mini-batch graph
// (nn/train) then draws no initialisation only to replace it.
func WithValues(values nn.Values) Option { return kit.Values(values) }
