package sage

import (
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Aggregator selects how SAGEConv combines a node's neighbours.
type Aggregator uint8

// Aggregators, as in DGL's SAGEConv (LSTM is not implemented).
const (
	Mean Aggregator = iota // mean of the neighbours, plus a separate self term
	GCN                    // mean over the neighbours and the node itself
	Pool                   // elementwise max of ReLU(h_u W_pool + b_pool), plus a self term
)

// String returns DGL's name of the aggregator.
func (a Aggregator) String() string { return aggregators.Name(a) }

var aggregators = layerkit.Enum[Aggregator]{Type: "Aggregator", What: "aggregator", Names: []string{"mean", "gcn", "pool"}}

// Option configures a SAGEConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	agg   Aggregator
	dstIn int // 0: in
}

var kit = layerkit.Kit[*config, Option]{Pkg: "sage"}

// WithDstIn sets the width of the destination features ForwardBipartite
// takes (DGL's in_feats pair (in, n)), for relations between two node
// types; the default is in. The self weight fc_self is then (n, out). The
// gcn aggregator adds destination and source features, so it needs n = in.
func WithDstIn(n int) Option {
	return kit.AtLeast("destination width", n, 1, func(c *config) *int { return &c.dstIn })
}

// WithAggregator sets the aggregator (default Mean).
func WithAggregator(a Aggregator) Option {
	return layerkit.Choice(kit, aggregators, a, func(c *config) *Aggregator { return &c.agg })
}

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return kit.Bias(on) }

// WithActivation sets the output activation (default none).
func WithActivation(f nn.Activation) Option { return kit.Activation(f) }

// WithFeatDropout sets the dropout probability on the input features
// (default 0). Dropout needs WithMode.
func WithFeatDropout(p float64) Option { return kit.Dropout(p) }

// WithMode sets the training/evaluation switch the dropout follows.
func WithMode(m *nn.Mode) Option { return kit.Mode(m) }

// WithName sets the prefix of the parameter names (default a unique
// "sage<k>").
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of initialisation and dropout (default: derived from the layer name, so unseeded layers differ).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }

// WithValues makes the layer start each parameter from values' tensor of
// its name instead of drawing one (see nn.Values); a tensor of another
// dtype or shape is an error.
func WithValues(values nn.Values) Option { return kit.Values(values) }

// WithDtype sets the parameters' dtype (default float32).
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }
