package layerkit

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Kit makes a layer package's common options and runs its constructor's
// prologue. C is the package's configuration (a pointer to a struct
// embedding Config) and O its Option type, func(C) error, so that each
// package keeps its own option type and names (gcn.WithName) while their
// code is written once, here:
//
//	var kit = layerkit.Kit[*config, Option]{Pkg: "gcn"}
//
//	// WithName sets the prefix of the parameter names (default a unique "gcn<k>").
//	func WithName(name string) Option { return kit.Name(name) }
type Kit[C Configured, O ~func(C) error] struct {
	// Pkg is the package's name: the prefix of its errors and of its
	// layers' default names.
	Pkg string
}

// Setup is a constructor's prologue: it checks eg, applies opts to c,
// checks that the dropouts (Config.Dropout and the layer's others, read
// after the options) have a Mode, and finishes c (Config.Finish, with the
// package name as the name's prefix).
func (k Kit[C, O]) Setup(eg *gorgonia.ExprGraph, c C, opts []O, dropouts ...func(C) float64) error {
	if eg == nil {
		return fmt.Errorf("%s: nil expression graph", k.Pkg)
	}
	if err := k.Apply(c, opts); err != nil {
		return err
	}
	ps := make([]float64, len(dropouts))
	for i, p := range dropouts {
		ps[i] = p(c)
	}
	if err := c.Kit().NeedMode(ps...); err != nil {
		return err
	}
	c.Kit().Finish(eg, k.Pkg)
	return nil
}

// Build is the prologue of a constructor of a layer with in input and out
// output features: Sizes, then Setup, then the parameter builder of c in
// eg (which sees later changes to c).
func (k Kit[C, O]) Build(eg *gorgonia.ExprGraph, in, out int, c C, opts []O, dropouts ...func(C) float64) (*Params, error) {
	if err := k.Sizes(in, out); err != nil {
		return nil, err
	}
	if err := k.Setup(eg, c, opts, dropouts...); err != nil {
		return nil, err
	}
	return c.Kit().Params(eg), nil
}

// Sizes is the constructor check of a layer's feature sizes: both
// positive.
func (k Kit[C, O]) Sizes(in, out int) error {
	if in <= 0 || out <= 0 {
		return fmt.Errorf("%s: feature sizes must be positive, got in %d, out %d", k.Pkg, in, out)
	}
	return nil
}

// Apply sets c's defaults (float32), then applies opts in order; it
// returns the first option's error.
func (k Kit[C, O]) Apply(c C, opts []O) error {
	kc := c.Kit()
	kc.Pkg = k.Pkg
	if kc.Dtype == (tensor.Dtype{}) {
		kc.Dtype = tensor.Float32
	}
	for _, o := range opts {
		if o == nil {
			return fmt.Errorf("%s: nil option", k.Pkg)
		}
		if err := o(c); err != nil {
			return err
		}
	}
	return nil
}

// Name is the option WithName: the prefix of the parameter names.
func (k Kit[C, O]) Name(name string) O {
	return func(c C) error {
		if name == "" {
			return fmt.Errorf("%s: empty name", k.Pkg)
		}
		c.Kit().Name = name
		return nil
	}
}

// Seed is the option WithSeed: the seed of the initialisation and the
// dropout masks.
func (k Kit[C, O]) Seed(seed uint64) O {
	return func(c C) error {
		c.Kit().Seed, c.Kit().seedSet = seed, true
		return nil
	}
}

// Dtype is the option WithDtype: the parameters' dtype, float32 or
// float64.
func (k Kit[C, O]) Dtype(dt tensor.Dtype) O {
	return func(c C) error {
		if dt != tensor.Float32 && dt != tensor.Float64 {
			return fmt.Errorf("%s: dtype %v, want float32 or float64", k.Pkg, dt)
		}
		c.Kit().Dtype = dt
		return nil
	}
}

// Values is the option WithValues: the parameters' initial values.
func (k Kit[C, O]) Values(values nn.Values) O {
	return func(c C) error { c.Kit().Values = values; return nil }
}

// Mode is the option WithMode: the switch the dropouts follow.
func (k Kit[C, O]) Mode(m *nn.Mode) O {
	return func(c C) error { c.Kit().Mode = m; return nil }
}

// Bias is the option WithBias: whether the layer adds a learnable bias.
func (k Kit[C, O]) Bias(on bool) O {
	return func(c C) error { c.Kit().Bias = on; return nil }
}

// Activation is the option WithActivation: the output activation, nil for
// none.
func (k Kit[C, O]) Activation(f nn.Activation) O {
	return func(c C) error { c.Kit().Act = f; return nil }
}

// AllowZeroInDegree is the option WithAllowZeroInDegree: whether Forward
// runs on graphs with nodes that have no in-edges (see CheckZeroIn).
func (k Kit[C, O]) AllowZeroInDegree(on bool) O {
	return func(c C) error { c.Kit().AllowZeroIn = on; return nil }
}

// Dropout is the option of the dropout on the input features: p in
// [0, 1).
func (k Kit[C, O]) Dropout(p float64) O {
	return k.Probability("feature dropout", p, func(c C) *float64 { return &c.Kit().Dropout })
}

// Probability is an option setting the probability *field(c) of one of
// the layer's own dropouts (what names it in errors) to p in [0, 1).
func (k Kit[C, O]) Probability(what string, p float64, field func(C) *float64) O {
	return func(c C) error {
		if !(p >= 0 && p < 1) {
			return fmt.Errorf("%s: %s %v is not in [0, 1)", k.Pkg, what, p)
		}
		*field(c) = p
		return nil
	}
}

// NonNegative is an option setting the number *field(c) of the layer's own
// configuration (what names it in errors: "negative slope") to x, a
// finite number >= 0.
func (k Kit[C, O]) NonNegative(what string, x float64, field func(C) *float64) O {
	return func(c C) error {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("%s: %s %v is not a finite non-negative number", k.Pkg, what, x)
		}
		*field(c) = x
		return nil
	}
}

// AtLeast is an option setting the count *field(c) of the layer's own
// configuration (what names it in errors: "heads") to n >= least.
func (k Kit[C, O]) AtLeast(what string, n, least int, field func(C) *int) O {
	return func(c C) error {
		if n < least {
			return fmt.Errorf("%s: %s %d, want at least %d", k.Pkg, what, n, least)
		}
		*field(c) = n
		return nil
	}
}
