package model

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/nn/rgcn"
)

// PredictRelational runs a RelGraphConv model with node-type inputs
// (Spec.Inputs) in evaluation mode on the heterograph h, with the features
// x of the node types that have some (count x InputSpec.Features; the
// others learned embeddings), and returns the last layer's rows: the
// Target type's (count x OutFeatures), or every node's in the order of
// hetero.ToHomogeneous. h is made homogeneous with a relation per edge
// type, its edges normed as EdgeNorm says, and grouped by relation
// (rgcn.Group), on every call.
func (m *Model) PredictRelational(h *hetero.Graph, x map[string]*tensor.Dense) (*tensor.Dense, error) {
	if len(m.spec.Inputs) == 0 {
		return nil, fmt.Errorf("model: PredictRelational needs a model with node-type inputs")
	}
	if h == nil {
		return nil, fmt.Errorf("model: PredictRelational: nil heterograph")
	}
	e := env{eg: gorgonia.NewGraph(), dt: m.dt, mode: evalMode(), values: m.views()}
	xs := map[string]*gorgonia.Node{}
	for _, t := range sortedKeys(x) {
		xs[t] = gorgonia.NodeFromAny(e.eg, header(x[t]), gorgonia.WithName("x."+t))
	}
	out, _, err := m.relational(e, h, xs)
	if err != nil {
		return nil, err
	}
	vals, err := evaluate(e.eg, out)
	if err != nil {
		return nil, err
	}
	return vals[0], nil
}

// ForwardRelational adds a RelGraphConv model with node-type inputs to eg
// and applies it to the features x of the node types of h that have some,
// with dropout following Mode, as PredictRelational does: it returns the
// output and every parameter node (the inputs' embeddings and projections,
// then the layers'), holding the model's tensors, for training.
func (m *Model) ForwardRelational(eg *gorgonia.ExprGraph, h *hetero.Graph, x map[string]*gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	if len(m.spec.Inputs) == 0 {
		return nil, nil, fmt.Errorf("model: ForwardRelational needs a model with node-type inputs")
	}
	if h == nil {
		return nil, nil, fmt.Errorf("model: ForwardRelational: nil heterograph")
	}
	return m.relational(env{eg: eg, dt: m.dt, mode: m.mode, values: m.value}, h, x)
}

// relational builds the relational model on h in e's graph, from the
// features x of the node types that have some.
func (m *Model) relational(e env, h *hetero.Graph, x map[string]*gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	fail := func(err error) (*gorgonia.Node, gorgonia.Nodes, error) {
		return nil, nil, fmt.Errorf("model: %w", err)
	}
	types := h.NodeTypes()
	if len(types) != len(m.spec.Inputs) {
		return fail(fmt.Errorf("the heterograph has node types %v, the model's inputs %d types", types, len(m.spec.Inputs)))
	}
	target := -1
	for i, t := range types {
		in := m.spec.Inputs[i]
		if in.NodeType != t || in.Nodes != h.NodeCount(i) {
			return fail(fmt.Errorf("node type %d is %q with %d nodes, the model's input %d is %q with %d", i, t, h.NodeCount(i), i, in.NodeType, in.Nodes))
		}
		xt, ok := x[t]
		switch {
		case in.Features == 0 && ok:
			return fail(fmt.Errorf("node type %q learns an embedding: give it no features", t))
		case in.Features > 0 && !ok:
			return fail(fmt.Errorf("node type %q needs features (%d x %d)", t, in.Nodes, in.Features))
		case ok && (xt.Dims() != 2 || xt.Shape()[0] != in.Nodes || xt.Shape()[1] != in.Features || xt.Dtype() != m.dt):
			return fail(fmt.Errorf("node type %q: features are %v %v, want (%d, %d) %v", t, xt.Dtype(), xt.Shape(), in.Nodes, in.Features, m.dt))
		}
		if t == m.spec.Target {
			target = i
		}
	}
	for t := range x {
		if !slices.Contains(types, t) {
			return fail(fmt.Errorf("features for node type %q, which the heterograph lacks", t))
		}
	}
	hom, err := h.ToHomogeneous()
	if err != nil {
		return fail(err)
	}
	numRels := h.NumEdgeTypes()
	var norm []float64
	if m.spec.EdgeNorm == "right" {
		if norm, err = rgcn.RightNorm(hom.Graph, hom.EdgeType, numRels); err != nil {
			return fail(err)
		}
	}
	rel, err := rgcn.Group(hom.Graph, hom.EdgeType, numRels, norm)
	if err != nil {
		return fail(err)
	}
	if e.dt == tensor.Float32 {
		rel = rel.Float32() // the layers read float32 norms only
	}
	last := rel
	if target >= 0 {
		off := hom.NodeOffsets[target]
		if last, err = rel.DstRange(off, off+h.NodeCount(target)); err != nil {
			return fail(err)
		}
	}
	ins, params, err := buildInputs(e, &m.spec)
	if err != nil {
		return fail(err)
	}
	parts := make(gorgonia.Nodes, len(ins))
	for i, in := range ins {
		if parts[i], err = in.rows(x[types[i]]); err != nil {
			return fail(fmt.Errorf("input %d (%q): %w", i, types[i], err))
		}
	}
	var out *gorgonia.Node
	for l := range m.spec.Layers {
		b, err := m.build(e, l)
		if err != nil {
			return nil, nil, err
		}
		g := rel
		if l == len(m.spec.Layers)-1 {
			g = last
		}
		if l == 0 {
			out, err = b.rows(g, parts)
		} else {
			out, err = b.forward(g, out)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
		}
		params = append(params, b.params...)
	}
	return out, params, nil
}

// sortedKeys returns the keys of a map, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
