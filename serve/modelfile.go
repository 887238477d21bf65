package serve

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gnngo/gnn/model"
)

// LoadModel reads a model file (package model, as the examples' -save
// writes it) and returns it ready to serve (FromModel).
func LoadModel(path string) (*Model, error) {
	m, err := model.Load(path)
	if err != nil {
		return nil, err
	}
	return FromModel(m)
}

// FromModel serves a model of package model: its layers are the stack, its
// parameters the Shared, its spec gives the input width, the dtype, the
// fan-outs it was trained with and the self-loops. A model whose layers can
// run on a node's neighbourhood (SAGEConv, GATConv, GATv2Conv, GINConv
// without BatchNorm, GraphConv with the right or none norm) is served by
// neighbourhoods; any other (GraphConv's both and left norms, APPNP, SGC,
// TAG, Cheb, Linear, BatchNorm) on the whole graph (Model.WholeGraph).
// Graph-level, relational and heterograph models, and attention over edge
// features, are refused: a request carries no relations, types or edge
// features.
func FromModel(m *model.Model) (*Model, error) {
	spec := m.Spec()
	switch {
	case spec.Readout != nil:
		return nil, fmt.Errorf("serve: a graph-level model (readout %s) predicts graphs, not nodes", spec.Readout.Type)
	case len(spec.NodeFeatures) > 0:
		return nil, fmt.Errorf("serve: a heterograph model (node types %v) is not served", slices.Sorted(maps.Keys(spec.NodeFeatures)))
	case len(spec.Layers) == 0:
		return nil, fmt.Errorf("serve: the model has no layers")
	}
	whole := false
	var names []string
	for l, ls := range spec.Layers {
		names = append(names, ls.Name)
		ok, err := neighbourhoodLayer(ls)
		if err != nil {
			return nil, fmt.Errorf("serve: layer %d (%s %s): %w", l, ls.Type, ls.Name, err)
		}
		whole = whole || !ok
	}
	sm := &Model{Stack: m, Params: m.Shared(), InFeatures: spec.InFeatures, Dtype: m.Dtype(), Mode: m.Mode(),
		SelfLoops: spec.SelfLoops, WholeGraph: whole, LayerNames: names}
	if !whole && len(spec.Fanouts) == len(spec.Layers) {
		sm.Fanouts = spec.Fanouts
	}
	return sm, nil
}

// neighbourhoodLayer reports whether a layer's output at a node depends
// only on the node's in-neighbourhood (one hop), so that it runs on a
// sampled block, or returns an error for a layer the server cannot run.
func neighbourhoodLayer(ls model.LayerSpec) (bool, error) {
	switch ls.Type {
	case model.SAGEConv:
		return true, nil
	case model.GATConv, model.GATv2Conv:
		if ls.EdgeFeatures > 0 {
			return false, fmt.Errorf("its attention reads %d edge features, which requests do not carry", ls.EdgeFeatures)
		}
		return true, nil
	case model.GINConv:
		for _, m := range ls.MLP {
			if m.Type == model.BatchNorm {
				return false, nil // statistics over all the rows given
			}
		}
		return true, nil
	case model.GraphConv:
		return ls.Norm == "right" || ls.Norm == "none", nil
	case model.RelGraphConv, model.HeteroGraphConv:
		return false, fmt.Errorf("relational layers need edge types, which requests do not carry")
	}
	return false, nil
}
