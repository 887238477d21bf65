package tag

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Option configures a TAGConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	k int
}

var kit = layerkit.Kit[*config, Option]{Pkg: "tag"}

// WithK sets the number of hops K (default 2, as DGL).
func WithK(k int) Option {
	return kit.AtLeast("hops", k, 0, func(c *config) *int { return &c.k })
}

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return kit.Bias(on) }

// WithActivation sets the output activation (default none).
func WithActivation(f nn.Activation) Option { return kit.Activation(f) }

// WithName sets the prefix of the parameter names (default a unique "tag<k>").
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
