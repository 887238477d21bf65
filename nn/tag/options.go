package tag

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Option configures a TAGConv.
type Option func(*config) error

type config struct {
	k       int
	bias    bool
	act     nn.Activation
	name    string
	seedSet bool
	seed    uint64
	dtype   tensor.Dtype
}

// WithK sets the number of hops K (default 2, as DGL).
func WithK(k int) Option {
	return func(c *config) error {
		if k < 0 {
			return fmt.Errorf("tag: %d hops, want at least 0", k)
		}
		c.k = k
		return nil
	}
}

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return func(c *config) error { c.bias = on; return nil } }

// WithActivation sets the output activation (default none).
func WithActivation(f nn.Activation) Option { return func(c *config) error { c.act = f; return nil } }

// WithName sets the prefix of the parameter names (default a unique "tag<k>").
func WithName(name string) Option {
	return func(c *config) error {
		if name == "" {
			return fmt.Errorf("tag: empty name")
		}
		c.name = name
		return nil
	}
}

// WithSeed sets the seed of the weight initialisation (default: derived
// from the layer name).
func WithSeed(seed uint64) Option {
	return func(c *config) error { c.seed, c.seedSet = seed, true; return nil }
}

// WithDtype sets the parameters' dtype (default float32).
func WithDtype(dt tensor.Dtype) Option {
	return func(c *config) error {
		if dt != tensor.Float32 && dt != tensor.Float64 {
			return fmt.Errorf("tag: dtype %v, want float32 or float64", dt)
		}
		c.dtype = dt
		return nil
	}
}
