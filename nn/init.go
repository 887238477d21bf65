package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Glorot returns a tensor of the given shape and dtype drawn from the Glorot
// (Xavier) uniform distribution U(-a, a), a = gain*sqrt(6/(fanIn+fanOut)),
// with fanIn = shape[0] and fanOut = the product of the other dimensions, as
// PyTorch computes them for a weight matrix. The same seed gives the same
// tensor.
func Glorot(dt tensor.Dtype, seed uint64, gain float64, shape ...int) (*tensor.Dense, error) {
	if len(shape) == 0 {
		return nil, fmt.Errorf("nn: Glorot needs a shape")
	}
	fanIn, fanOut := shape[0], 1
	for _, d := range shape[1:] {
		fanOut *= d
	}
	if len(shape) == 1 {
		fanIn, fanOut = 1, shape[0]
	}
	a := gain * math.Sqrt(6/float64(fanIn+fanOut))
	r := rand.New(rand.NewPCG(seed, 0x676c6f726f74))
	n := fanIn * fanOut
	if len(shape) == 1 {
		n = shape[0]
	}
	draw := func() float64 { return (2*r.Float64() - 1) * a }
	switch dt {
	case tensor.Float32:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(draw())
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v)), nil
	case tensor.Float64:
		v := make([]float64, n)
		for i := range v {
			v[i] = draw()
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v)), nil
	}
	return nil, fmt.Errorf("nn: unsupported dtype %v", dt)
}

// Zeros returns a zero tensor of the given shape and dtype.
func Zeros(dt tensor.Dtype, shape ...int) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
}

// Values looks a parameter's value up by its full name; nil means unknown.
// A layer given Values (train.Shared's Value, for a model rebuilt on every
// mini-batch graph) starts a parameter from the tensor found instead of
// drawing a fresh one, so that no initialisation is drawn only to be
// replaced. The layer packages refuse a tensor of another dtype or shape
// than the parameter's, with an error naming the parameter; a nil tensor
// (an unknown name) leaves the parameter to its seeded draw.
type Values func(name string) *tensor.Dense

// Initial returns values' tensor for name when values is not nil and holds
// one of dtype dt and the given shape, and draw's tensor otherwise (a
// tensor of another dtype or shape is left for the caller's binding to
// report).
func Initial(values Values, name string, dt tensor.Dtype, shape []int, draw func() (*tensor.Dense, error)) (*tensor.Dense, error) {
	if values != nil {
		if v := values(name); v != nil && v.Dtype() == dt && v.Shape().Eq(tensor.Shape(shape)) {
			return v, nil
		}
	}
	return draw()
}

// Param adds a learnable tensor to eg with the given name and value.
func Param(eg *gorgonia.ExprGraph, name string, v *tensor.Dense) *gorgonia.Node {
	return gorgonia.NodeFromAny(eg, v, gorgonia.WithName(name))
}
