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

// Param adds a learnable tensor to eg with the given name and value.
func Param(eg *gorgonia.ExprGraph, name string, v *tensor.Dense) *gorgonia.Node {
	return gorgonia.NodeFromAny(eg, v, gorgonia.WithName(name))
}
