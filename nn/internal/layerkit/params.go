package layerkit

import (
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Params adds a layer's parameters to an expression graph, each named
// Config.Name+"."+suffix and of Config.Dtype. A parameter starts from
// Config.Values' tensor of its name when Values has one (which must then
// have the parameter's dtype and shape: anything else is an error), and
// is drawn otherwise. The first error is kept: later calls add nothing and
// return nil, and Err returns it, so that a constructor checks once.
type Params struct {
	eg  *gorgonia.ExprGraph
	c   *Config
	err error
}

// Params returns a parameter builder for c's layer in eg.
func (c *Config) Params(eg *gorgonia.ExprGraph) *Params { return &Params{eg: eg, c: c} }

// Err returns the first error of the parameters added so far.
func (p *Params) Err() error { return p.err }

// Add adds the parameter suffix of the given shape, drawn by draw unless
// the values give it.
func (p *Params) Add(suffix string, shape []int, draw func() (*tensor.Dense, error)) *gorgonia.Node {
	if p.err != nil {
		return nil
	}
	name := p.c.Name + "." + suffix
	v, err := p.initial(name, shape, draw)
	if err != nil {
		p.err = err
		return nil
	}
	return nn.Param(p.eg, name, v)
}

// initial returns the values' tensor of name, checked, or draw's.
func (p *Params) initial(name string, shape []int, draw func() (*tensor.Dense, error)) (*tensor.Dense, error) {
	dt := p.c.Dtype
	if p.c.Values != nil {
		if v := p.c.Values(name); v != nil {
			if v.Dtype() != dt || !v.Shape().Eq(tensor.Shape(shape)) {
				return nil, p.c.Errorf("the initial value of %q is %v %v; the parameter is %v %v", name, v.Dtype(), v.Shape(), dt, tensor.Shape(shape))
			}
			return v, nil
		}
	}
	v, err := draw()
	if err != nil {
		return nil, p.c.Errorf("parameter %q: %w", name, err)
	}
	return v, nil
}

// ReLUGain is the Glorot gain of the weights of the layers that DGL
// initialises with nn.init.calculate_gain("relu"), sqrt(2): GATConv,
// GATv2Conv, SAGEConv and TAGConv.
const ReLUGain = math.Sqrt2

// Glorot adds the parameter suffix of the given shape, drawn from the
// Glorot-uniform distribution with the given gain from the layer's seed
// stream k (nn.ParamSeed).
func (p *Params) Glorot(suffix string, k uint64, gain float64, shape ...int) *gorgonia.Node {
	return p.Add(suffix, shape, func() (*tensor.Dense, error) {
		return nn.Glorot(p.c.Dtype, nn.ParamSeed(p.c.Seed, k), gain, shape...)
	})
}

// GlorotAs is Glorot drawn as a tensor of shape drawn (whose fans set the
// bound) and then given the parameter's shape, of as many elements: an
// attention vector drawn as a (heads, out) matrix and held as (1, heads,
// out).
func (p *Params) GlorotAs(suffix string, k uint64, gain float64, drawn []int, shape ...int) *gorgonia.Node {
	return p.Add(suffix, shape, func() (*tensor.Dense, error) {
		v, err := nn.Glorot(p.c.Dtype, nn.ParamSeed(p.c.Seed, k), gain, drawn...)
		if err != nil {
			return nil, err
		}
		return v, v.Reshape(shape...)
	})
}

// Zeros adds the parameter suffix of the given shape, starting at 0.
func (p *Params) Zeros(suffix string, shape ...int) *gorgonia.Node {
	return p.Add(suffix, shape, func() (*tensor.Dense, error) { return nn.Zeros(p.c.Dtype, shape...), nil })
}

// Fill adds the parameter suffix of the given shape, every element
// starting at x.
func (p *Params) Fill(suffix string, x float64, shape ...int) *gorgonia.Node {
	return p.Add(suffix, shape, func() (*tensor.Dense, error) {
		v := nn.Zeros(p.c.Dtype, shape...)
		switch d := v.Data().(type) {
		case []float32:
			for i := range d {
				d[i] = float32(x)
			}
		case []float64:
			for i := range d {
				d[i] = x
			}
		}
		return v, nil
	})
}

// Built ends a constructor: l, or the first error of its parameters ps
// (and the zero L).
func Built[L any](l L, ps *Params) (L, error) {
	if err := ps.Err(); err != nil {
		var zero L
		return zero, err
	}
	return l, nil
}

// Present returns the parameters that are not nil, in order: a layer's
// Learnables when options leave some out.
func Present(ps ...*gorgonia.Node) gorgonia.Nodes {
	var out gorgonia.Nodes
	for _, p := range ps {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}
