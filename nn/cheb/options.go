package cheb

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Option configures a ChebConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	lambda float64
}

var kit = layerkit.Kit[*config, Option]{Pkg: "cheb"}

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
func WithBias(on bool) Option { return kit.Bias(on) }

// WithActivation sets the output activation (default nn.ReLU, as DGL's
// F.relu; nil for none).
func WithActivation(f nn.Activation) Option { return kit.Activation(f) }

// WithName sets the prefix of the parameter names (default a unique "cheb<k>").
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
