package setup

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
)

// TwoLayers adds the two layers of m to eg over g: the first reading the
// input features in (sparse ones never densified), the second its output.
// It returns the second layer's output and each layer's parameters.
func TwoLayers(eg *gorgonia.ExprGraph, m *model.Model, g nn.Graph, in Input) (out *gorgonia.Node, p1, p2 gorgonia.Nodes, err error) {
	var h *gorgonia.Node
	if in.Sparse != nil {
		h, p1, err = m.LayerSparse(eg, 0, g, in.Sparse)
	} else {
		h, p1, err = m.Layer(eg, 0, g, in.Dense)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	out, p2, err = m.Layer(eg, 1, g, h)
	if err != nil {
		return nil, nil, nil, err
	}
	return out, p1, p2, nil
}
