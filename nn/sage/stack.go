package sage

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Stack is a GraphSAGE model of several SAGEConv layers (DGL's SAGE of its
// mini-batch example): Widths[0] input features, Widths[l+1] outputs of
// layer l, ReLU between layers, and feature dropout on the input of every
// layer but the first when Dropout > 0 (which needs Mode). It builds its
// layers afresh on every expression graph it is given, named Name1,
// Name2, ... with the default initialisation, so that it runs on a
// different mini-batch graph each step (it satisfies nn/train's Stack).
type Stack struct {
	Widths     []int
	Aggregator Aggregator
	Dtype      tensor.Dtype // float32 when zero
	Dropout    float64
	Mode       *nn.Mode
	Name       string // "sage" when empty
	// Values, when set, gives the layers their parameters' current values
	// (nn.Values; set it to the train.Shared's Value) so that a rebuild
	// draws no initialisation only for Shared to replace it.
	Values nn.Values
}

// NumLayers returns len(Widths)-1.
func (s *Stack) NumLayers() int { return len(s.Widths) - 1 }

// Layer adds layer l to eg and applies it to x on g.
func (s *Stack) Layer(eg *gorgonia.ExprGraph, l int, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	if l < 0 || l >= s.NumLayers() {
		return nil, nil, fmt.Errorf("sage: layer %d of a stack of %d", l, s.NumLayers())
	}
	name, dt := s.Name, s.Dtype
	if name == "" {
		name = "sage"
	}
	if dt == (tensor.Dtype{}) {
		dt = tensor.Float32
	}
	opts := []Option{WithAggregator(s.Aggregator), WithDtype(dt), WithName(fmt.Sprintf("%s%d", name, l+1)), WithValues(s.Values)}
	if l < s.NumLayers()-1 {
		opts = append(opts, WithActivation(nn.ReLU))
	}
	if l > 0 && s.Dropout > 0 {
		opts = append(opts, WithFeatDropout(s.Dropout), WithMode(s.Mode))
	}
	layer, err := New(eg, s.Widths[l], s.Widths[l+1], opts...)
	if err != nil {
		return nil, nil, err
	}
	out, err := layer.Forward(g, x)
	if err != nil {
		return nil, nil, err
	}
	return out, layer.Learnables(), nil
}
