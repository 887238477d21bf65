package sgc

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Option configures an SGConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	k      int
	cached bool
	norm   nn.Activation
}

var kit = layerkit.Kit[*config, Option]{Pkg: "sgc"}

// WithK sets the number of propagation steps (default 1).
func WithK(k int) Option {
	return kit.AtLeast("propagation steps", k, 1, func(c *config) *int { return &c.k })
}

// WithCached propagates the features once, at Forward, and reuses the
// result in every run (default false); see the package comment.
func WithCached(on bool) Option { return func(c *config) error { c.cached = on; return nil } }

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return kit.Bias(on) }

// WithFeatureNorm sets a function applied to the propagated features
// before the linear map (DGL's norm; default none).
func WithFeatureNorm(f nn.Activation) Option { return func(c *config) error { c.norm = f; return nil } }

// WithAllowZeroInDegree lets Forward run on graphs with nodes that have no
// in-edges (they get the bias alone); by default it is an error, as in DGL.
func WithAllowZeroInDegree(on bool) Option { return kit.AllowZeroInDegree(on) }

// WithName sets the prefix of the parameter names (default a unique "sgc<k>").
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of the weight initialisation (default: derived
// from the layer name).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }

// WithDtype sets the parameters' dtype (default float32).
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }

// WithValues makes the layer start each parameter from values' tensor of
// its name instead of drawing one (see nn.Values); a tensor of another
// dtype or shape is an error. A model rebuilt on every mini-batch graph
// (nn/train) then draws no initialisation only to replace it.
func WithValues(values nn.Values) Option { return kit.Values(values) }
