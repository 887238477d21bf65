package appnp

import (
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Option configures an APPNPConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	edgeDrop float64
}

var kit = layerkit.Kit[*config, Option]{Pkg: "appnp"}

// WithEdgeDropout sets the probability of dropping each edge in each step
// (default 0, DGL's edge_drop). Dropout needs WithMode.
func WithEdgeDropout(p float64) Option {
	return kit.Probability("edge dropout", p, func(c *config) *float64 { return &c.edgeDrop })
}

// WithMode sets the training/evaluation switch edge dropout follows.
func WithMode(m *nn.Mode) Option { return kit.Mode(m) }

// WithName sets the prefix of the layer's node names (default "appnp<k>",
// unique in the expression graph of the first Forward).
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of the edge dropout masks (default: derived from
// the layer name).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }
