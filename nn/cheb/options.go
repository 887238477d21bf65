package cheb

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Option configures a ChebConv.
type Option func(*config) error

type config struct {
	lambda  float64
	bias    bool
	act     nn.Activation
	name    string
	seedSet bool
	seed    uint64
	dtype   tensor.Dtype
}

// WithLambdaMax sets the largest eigenvalue of the normalised Laplacian
// that Forward rescales by (default 2, as DGL when none is given; see
// LambdaMax).
func WithLambdaMax(l float64) Option {
	return func(c *config) error {
		if err := checkLambda(l); err != nil {
			return err
		}
		c.lambda = l
		return nil
	}
}

// checkLambda rejects an eigenvalue bound that is not positive and finite.
func checkLambda(l float64) error {
	if !(l > 0) || math.IsInf(l, 1) {
		return fmt.Errorf("cheb: lambda_max %v is not a positive finite number", l)
	}
	return nil
}

// WithBias sets whether the layer adds a learnable bias (default true).
func WithBias(on bool) Option { return func(c *config) error { c.bias = on; return nil } }

// WithActivation sets the output activation (default nn.ReLU, as DGL's
// F.relu; nil for none).
func WithActivation(f nn.Activation) Option { return func(c *config) error { c.act = f; return nil } }

// WithName sets the prefix of the parameter names (default a unique "cheb<k>").
func WithName(name string) Option {
	return func(c *config) error {
		if name == "" {
			return fmt.Errorf("cheb: empty name")
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
			return fmt.Errorf("cheb: dtype %v, want float32 or float64", dt)
		}
		c.dtype = dt
		return nil
	}
}
