package link

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Combine says how the MLP decoder and the edge head combine the two
// endpoints' rows of an edge before their first layer.
type Combine uint8

// The combinations.
const (
	// Concat feeds [h_u, h_v] (2F wide, plus the edge features of an edge
	// head). The first layer is then h_u W_u + h_v W_v, which is computed on
	// the nodes and gathered onto the edges when that is cheaper (fewer
	// node rows than twice the edges): no 2F-wide rows are formed.
	Concat Combine = iota
	// Hadamard feeds h_u * h_v (F wide), an E x F tensor.
	Hadamard
)

var combines = layerkit.Enum[Combine]{Type: "Combine", What: "combination", Names: []string{"concat", "hadamard"}}

// String returns the combination's name: "concat" or "hadamard".
func (c Combine) String() string { return combines.Name(c) }

// Option configures the learnable decoders (DistMult, MLP) and EdgeHead.
type Option func(*config) error

type config struct {
	layerkit.Config
	combine  Combine
	edgeFeat int
}

var kit = layerkit.Kit[*config, Option]{Pkg: "link"}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) (config, error) {
	var c config
	return c, kit.Apply(&c, opts)
}

// WithName sets the prefix of the parameter names (default a unique
// "distmult<k>", "mlp<k>" or "edgehead<k>").
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of the initialisation (default: derived from the
// name, so that unseeded modules differ).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }

// WithDtype sets the parameters' dtype (default float32).
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }

// WithValues starts each parameter from values' tensor of its name when it
// has the right dtype and shape (see nn.Values), for a model rebuilt on
// every mini-batch.
func WithValues(values nn.Values) Option { return kit.Values(values) }

// WithCombine sets how the MLP decoder and the edge head combine the
// endpoints (default Concat).
func WithCombine(m Combine) Option {
	return layerkit.Choice(kit, combines, m, func(c *config) *Combine { return &c.combine })
}

// WithEdgeFeatures gives an EdgeHead d features per edge, concatenated to
// the endpoints' rows (default 0: none). The MLP decoder takes none.
func WithEdgeFeatures(d int) Option {
	return kit.AtLeast("edge features", d, 0, func(c *config) *int { return &c.edgeFeat })
}
