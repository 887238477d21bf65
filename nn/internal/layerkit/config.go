package layerkit

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Config is the configuration every layer's own embeds: what the common
// options (Kit's methods) set.
type Config struct {
	// Pkg is the layer package's name ("gcn"), the prefix of its errors;
	// Kit sets it.
	Pkg string
	// Name is the prefix of the parameter names ("gcn1"); Finish gives it
	// a unique default.
	Name string
	// Seed seeds the initialisation and the dropout masks; Finish derives
	// it from Name when no option set it.
	Seed    uint64
	seedSet bool
	// Dtype is the parameters' dtype, float32 unless an option sets it.
	Dtype tensor.Dtype
	// Values gives parameters their initial values (see Params).
	Values nn.Values
	// Mode is the training/evaluation switch the dropouts follow.
	Mode *nn.Mode
	// Dropout is the probability of the dropout on the layer's input
	// features (0: none).
	Dropout float64
	// Bias says whether the layer adds a learnable bias; the layers that
	// have one set it before the options (their default, true).
	Bias bool
	// Act is the layer's output activation, nil for none (Activate).
	Act nn.Activation
	// AllowZeroIn lets Forward run on graphs with destination nodes that
	// have no in-edges (CheckZeroIn).
	AllowZeroIn bool
}

// Configured is a layer's configuration: a pointer to a struct that
// embeds Config.
type Configured interface{ Kit() *Config }

// Kit returns c itself, so that a struct embedding Config is Configured.
func (c *Config) Kit() *Config { return c }

// Finish gives c what the options left unset: a name unique in eg (prefix
// followed by the smallest free number, nn.UniqueName) and a seed derived
// from the name (nn.SeedOf).
func (c *Config) Finish(eg *gorgonia.ExprGraph, prefix string) {
	if c.Name == "" {
		c.Name = nn.UniqueName(eg, prefix)
	}
	if !c.seedSet {
		c.Seed, c.seedSet = nn.SeedOf(c.Name), true
	}
}

// NeedMode returns an error when Dropout or one of the other probabilities
// is positive and no Mode is set: dropout without a training switch would
// stay on in evaluation.
func (c *Config) NeedMode(dropouts ...float64) error {
	if c.Mode != nil {
		return nil
	}
	for _, p := range append(dropouts, c.Dropout) {
		if p > 0 {
			return fmt.Errorf("%s: dropout needs WithMode", c.Pkg)
		}
	}
	return nil
}

// Errorf returns an error prefixed with the package and, once known, the
// layer's name ("gcn: gcn1: ...").
func (c *Config) Errorf(format string, args ...any) error {
	if c.Name == "" {
		return fmt.Errorf("%s: "+format, append([]any{c.Pkg}, args...)...)
	}
	return fmt.Errorf("%s: %s: "+format, append([]any{c.Pkg, c.Name}, args...)...)
}
