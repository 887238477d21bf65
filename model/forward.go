package model

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
)

// Forward adds the whole node-level model to eg and applies it to x on g
// (Layer for every layer, in order, edge features aside), with dropout
// following Mode: it returns the output and every parameter node, holding
// the model's values, for training the model full-graph.
func (m *Model) Forward(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	switch {
	case m.spec.Readout != nil:
		return nil, nil, fmt.Errorf("model: a graph-level model runs with ForwardGraphs")
	case len(m.spec.Inputs) > 0:
		return nil, nil, fmt.Errorf("model: a model with node-type inputs runs with ForwardRelational")
	case len(m.spec.NodeFeatures) > 0:
		return nil, nil, fmt.Errorf("model: a HeteroGraphConv model has no Forward; its layers run in PredictHetero")
	}
	hs, params, err := m.stack(env{eg: eg, dt: m.dt, mode: m.mode, values: m.value}, g, x, nil)
	if err != nil {
		return nil, nil, err
	}
	return hs[len(hs)-1], params, nil
}

// ForwardGraphs adds the whole graph-level model (layers, readout, head)
// to eg and applies it to the node features x of the batch b, with
// dropout following Mode: it returns one row per graph and every
// parameter node, holding the model's values, for training.
func (m *Model) ForwardGraphs(eg *gorgonia.ExprGraph, b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	if m.spec.Readout == nil {
		return nil, nil, fmt.Errorf("model: ForwardGraphs needs a graph-level model (one with a readout)")
	}
	if b == nil {
		return nil, nil, fmt.Errorf("model: ForwardGraphs: nil batch")
	}
	return m.graphs(env{eg: eg, dt: m.dt, mode: m.mode, values: m.value}, b, x)
}

// graphs adds the graph-level model to e's graph: the layers, then the
// readout and head of the last layer, or of every level summed. Levels
// are built in order between the layers (level l's readout right after
// layer l), so that the gradients that meet at a layer's output are summed
// in one order whatever the spec.
func (m *Model) graphs(e env, b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	// The readout's and the head's parameters start from e.values, which
	// Linear and BatchNorm layers take as they are: no binding needed.
	levels, err := buildLevels(e, &m.spec)
	if err != nil {
		return nil, nil, modelError{fmt.Errorf("model: %w", err)}
	}
	var out *gorgonia.Node
	var params gorgonia.Nodes
	read := func(lv level, h *gorgonia.Node) error {
		y, err := lv.pool(b, h)
		if err == nil && lv.head != nil {
			y, err = lv.head(y)
		}
		if err == nil && out != nil {
			y, err = gorgonia.Add(out, y)
		}
		if err != nil {
			return modelError{fmt.Errorf("model: %s: %w", lv.where, err)}
		}
		out = y
		params = append(params, lv.params...)
		return nil
	}
	every := len(levels) > 1
	if every {
		if err := read(levels[0], x); err != nil {
			return nil, nil, err
		}
	}
	h := x
	for l := range m.spec.Layers {
		var ps gorgonia.Nodes
		if h, ps, err = m.step(e, l, b.Graph, h, nil); err != nil {
			return nil, nil, err
		}
		params = append(params, ps...)
		if every {
			if err := read(levels[l+1], h); err != nil {
				return nil, nil, err
			}
		}
	}
	if !every {
		if err := read(levels[0], h); err != nil {
			return nil, nil, err
		}
	}
	return out, params, nil
}

// modelError marks errors already prefixed "model: ".
type modelError struct{ error }

// stack applies the layers to x on g in e's graph; layers with edge
// features take ef. It returns x and every layer's output, and the layers'
// parameters.
func (m *Model) stack(e env, g nn.Graph, x, ef *gorgonia.Node) (gorgonia.Nodes, gorgonia.Nodes, error) {
	hs := gorgonia.Nodes{x}
	var params gorgonia.Nodes
	for l := range m.spec.Layers {
		h, ps, err := m.step(e, l, g, hs[l], ef)
		if err != nil {
			return nil, nil, err
		}
		hs = append(hs, h)
		params = append(params, ps...)
	}
	return hs, params, nil
}

// step adds layer l to e's graph and applies it to h on g (with the edge
// features ef for a layer that takes them).
func (m *Model) step(e env, l int, g nn.Graph, h, ef *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	b, err := m.build(e, l)
	if err != nil {
		return nil, nil, modelError{err}
	}
	where := func(err error) error {
		return modelError{fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)}
	}
	switch {
	case b.edges != nil:
		gg, ok := g.(*graph.Graph)
		if ef == nil || !ok {
			return nil, nil, where(fmt.Errorf("the layer takes edge features: use PredictEdges"))
		}
		h, err = b.edges(gg, h, ef)
	case b.forward != nil:
		h, err = b.forward(g, h)
	default:
		return nil, nil, where(fmt.Errorf("the layer runs on a heterograph: use PredictHetero"))
	}
	if err != nil {
		return nil, nil, where(err)
	}
	return h, b.params, nil
}
