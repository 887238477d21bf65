package gin

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Aggregator selects how GINConv reduces a node's neighbours.
type Aggregator uint8

// Aggregators, as in DGL's GINConv.
const (
	Sum  Aggregator = iota // sum of the neighbours (the paper's)
	Mean                   // mean, dividing by max(in-degree, 1)
	Max                    // elementwise max, 0 without in-edges
)

// String returns DGL's name of the aggregator.
func (a Aggregator) String() string { return aggregators.Name(a) }

var aggregators = layerkit.Enum[Aggregator]{Type: "Aggregator", What: "aggregator", Names: []string{"sum", "mean", "max"}}

// Option configures a GINConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	agg      Aggregator
	eps      float64
	learnEps bool
	apply    nn.Activation
	params   gorgonia.Nodes
	act      nn.Activation
}

var kit = layerkit.Kit[*config, Option]{Pkg: "gin"}

// WithAggregator sets the aggregator (default Sum).
func WithAggregator(a Aggregator) Option {
	return layerkit.Choice(kit, aggregators, a, func(c *config) *Aggregator { return &c.agg })
}

// WithEps sets ε, or its initial value with WithLearnEps (default 0).
func WithEps(eps float64) Option {
	return func(c *config) error {
		if math.IsNaN(eps) || math.IsInf(eps, 0) {
			return fmt.Errorf("gin: eps %v is not finite", eps)
		}
		c.eps = eps
		return nil
	}
}

// WithLearnEps makes ε a learnable parameter (default fixed).
func WithLearnEps(on bool) Option { return func(c *config) error { c.learnEps = on; return nil } }

// WithApply sets the function f applied after the aggregation (default the
// identity). It must map (NumDst, in) features to (NumDst, out). params are
// the learnable nodes f uses; Learnables returns them after ε.
func WithApply(f nn.Activation, params ...*gorgonia.Node) Option {
	return func(c *config) error {
		if f == nil && len(params) > 0 {
			return fmt.Errorf("gin: parameters without an apply function")
		}
		for i, p := range params {
			if p == nil {
				return fmt.Errorf("gin: apply parameter %d is nil", i)
			}
		}
		c.apply = f
		c.params = append(gorgonia.Nodes{}, params...)
		return nil
	}
}

// WithActivation sets the activation applied last (default none).
func WithActivation(f nn.Activation) Option { return func(c *config) error { c.act = f; return nil } }

// WithName sets the prefix of the parameter names (default a unique
// "gin<k>").
func WithName(name string) Option { return kit.Name(name) }

// WithDtype sets the dtype of the features and of ε (default float32).
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }

// WithValues makes the layer start each parameter from values' tensor of
// its name instead of drawing one (see nn.Values); a tensor of another
// dtype or shape is an error. A model rebuilt on every mini-batch graph
// (nn/train) then draws no initialisation only to replace it.
func WithValues(values nn.Values) Option { return kit.Values(values) }
