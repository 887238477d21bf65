package appnp

import (
	"fmt"

	"github.com/gnngo/gnn/nn"
)

// Option configures an APPNPConv.
type Option func(*config) error

type config struct {
	edgeDrop float64
	mode     *nn.Mode
	name     string
	seedSet  bool
	seed     uint64
}

// WithEdgeDropout sets the probability of dropping each edge in each step
// (default 0, DGL's edge_drop). Dropout needs WithMode.
func WithEdgeDropout(p float64) Option {
	return func(c *config) error {
		if !(p >= 0 && p < 1) {
			return fmt.Errorf("appnp: edge dropout %v is not in [0, 1)", p)
		}
		c.edgeDrop = p
		return nil
	}
}

// WithMode sets the training/evaluation switch edge dropout follows.
func WithMode(m *nn.Mode) Option { return func(c *config) error { c.mode = m; return nil } }

// WithName sets the prefix of the layer's node names (default "appnp<k>",
// unique in the expression graph of the first Forward).
func WithName(name string) Option {
	return func(c *config) error {
		if name == "" {
			return fmt.Errorf("appnp: empty name")
		}
		c.name = name
		return nil
	}
}

// WithSeed sets the seed of the edge dropout masks (default: derived from
// the layer name).
func WithSeed(seed uint64) Option {
	return func(c *config) error { c.seed, c.seedSet = seed, true; return nil }
}
