package rgcn

import (
	"fmt"
	"reflect"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Regularizer selects how RelGraphConv parametrises the relation weights.
type Regularizer uint8

// Regularizers, as DGL's regularizer argument.
const (
	None          Regularizer = iota // one (in, out) matrix per relation
	Basis                            // W_r = sum_b a_rb V_b over shared bases
	BlockDiagonal                    // W_r block-diagonal with B blocks ("bdd")
)

// String returns DGL's name of the regularizer.
func (r Regularizer) String() string { return regularizers.Name(r) }

var regularizers = layerkit.Enum[Regularizer]{Type: "Regularizer", What: "regularizer", Names: []string{"none", "basis", "bdd"}}

// Option configures a RelGraphConv.
type Option func(*config) error

type config struct {
	layerkit.Config
	reg      Regularizer
	numBases int
	selfLoop bool
	relu     bool // act is nn.ReLU: fused with the dropout
	dropout  float64
}

var kit = layerkit.Kit[*config, Option]{Pkg: "rgcn"}

// WithBasis uses the basis decomposition with numBases bases.
func WithBasis(numBases int) Option {
	return func(c *config) error {
		if numBases <= 0 {
			return fmt.Errorf("rgcn: %d bases; want at least 1", numBases)
		}
		c.reg, c.numBases = Basis, numBases
		return nil
	}
}

// WithBlockDiagonal uses the block-diagonal decomposition with numBlocks
// blocks; in and out must be multiples of numBlocks.
func WithBlockDiagonal(numBlocks int) Option {
	return func(c *config) error {
		if numBlocks <= 0 {
			return fmt.Errorf("rgcn: %d blocks; want at least 1", numBlocks)
		}
		c.reg, c.numBases = BlockDiagonal, numBlocks
		return nil
	}
}

// WithSelfLoop turns the self-loop term x_i W_0 on or off (default on).
func WithSelfLoop(on bool) Option { return func(c *config) error { c.selfLoop = on; return nil } }

// WithBias turns the bias on or off (default on).
func WithBias(on bool) Option { return kit.Bias(on) }

// WithActivation sets the activation applied before dropout (default none).
// nn.ReLU followed by dropout runs as the one op nn.ReLUDropout (the same
// values, a tensor less kept forward and backward).
func WithActivation(f nn.Activation) Option {
	return func(c *config) error {
		c.Act = f
		c.relu = f != nil && reflect.ValueOf(f).Pointer() == reflect.ValueOf(nn.Activation(nn.ReLU)).Pointer()
		return nil
	}
}

// WithDropout sets the dropout probability of the output, in [0, 1), and,
// when m is not nil, the Mode that switches it between training and
// evaluation (as WithMode, the other layers' shape, does).
func WithDropout(p float64, m *nn.Mode) Option {
	prob := kit.Probability("dropout", p, func(c *config) *float64 { return &c.dropout })
	return func(c *config) error {
		if m != nil {
			c.Mode = m
		}
		return prob(c)
	}
}

// WithMode sets the training/evaluation switch the dropout follows.
func WithMode(m *nn.Mode) Option { return kit.Mode(m) }

// WithName sets the prefix of the parameters' names (default a unique
// "rgcn<k>": rgcn1, rgcn2, ...).
func WithName(name string) Option { return kit.Name(name) }

// WithSeed sets the seed of the initialisation and dropout (default derived
// from the name).
func WithSeed(seed uint64) Option { return kit.Seed(seed) }

// WithDtype sets the parameters' dtype, float32 (default) or float64.
func WithDtype(dt tensor.Dtype) Option { return kit.Dtype(dt) }

// WithValues makes the layer start each parameter from values' tensor of
// its name instead of drawing one (see nn.Values); a tensor of another
// dtype or shape is an error. A model rebuilt on every mini-batch graph
// (nn/train) then draws no initialisation only to replace it.
func WithValues(values nn.Values) Option { return kit.Values(values) }
