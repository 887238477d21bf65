package gcn

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Norm selects GraphConv's normalisation.
type Norm uint8

// Normalisations, as in DGL's GraphConv.
const (
	Both  Norm = iota // D_in^-1/2 A D_out^-1/2 (Kipf and Welling)
	Right             // divide by the in-degree: the mean of incoming messages
	Left              // divide messages by the out-degree of their source
	None              // plain sum
)

var norms = layerkit.Enum[Norm]{Type: "Norm", What: "norm", Names: []string{"both", "right", "left", "none"}}

// String returns DGL's name of the normalisation.
func (n Norm) String() string { return norms.Name(n) }

// Option configures a GraphConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	norm   Norm
	weight bool
}

var kit = layerkit.Kit[*config, Option]{Pkg: "gcn"}

// WithNorm sets the normalisation (default Both).
func WithNorm(n Norm) Option {
	return layerkit.Choice(kit, norms, n, func(c *config) *Norm { return &c.norm })
}

// WithWeight sets whether the layer has a weight matrix (default true).
// Without one, in must equal out.
func WithWeight(on bool) Option { return func(c *config) error { c.weight = on; return nil } }

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return kit.Bias(on) }

// WithActivation sets the output activation (default none).
func WithActivation(f nn.Activation) Option { return kit.Activation(f) }

// WithAllowZeroInDegree lets Forward run on graphs with nodes that have no
// in-edges; such nodes get only the bias. By default Forward returns an
// error for them, as DGL does, because their output is usually a mistake
// (a graph without self-loops).
func WithAllowZeroInDegree(on bool) Option { return kit.AllowZeroInDegree(on) }

// WithName sets the prefix of the parameter names (default a unique "gcn<k>").
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of the weight initialisation (default: derived from the layer name, so unseeded layers differ).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }

// WithDtype sets the parameters' dtype (default float32).
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }

// WithValues makes the layer start each parameter from values' tensor of
// its name instead of drawing one (see nn.Values); a tensor of another
// dtype or shape is an error. A model rebuilt on every mini-batch graph
// (nn/train) then draws no initialisation only to replace it.
func WithValues(values nn.Values) Option { return kit.Values(values) }
