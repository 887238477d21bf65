package model

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
)

// activation returns the function of an activation name, nil for none.
func activation(name string) (nn.Activation, error) {
	switch name {
	case "", "none":
		return nil, nil
	case "relu":
		return nn.ReLU, nil
	case "elu":
		return nn.ELU, nil
	case "tanh":
		return gorgonia.Tanh, nil
	case "sigmoid":
		return gorgonia.Sigmoid, nil
	}
	return nil, fmt.Errorf("unknown activation %q (want none, relu, elu, tanh or sigmoid)", name)
}

// apply applies f to x when f is not nil.
func apply(f nn.Activation, x *gorgonia.Node) (*gorgonia.Node, error) {
	if f == nil {
		return x, nil
	}
	return f(x)
}
