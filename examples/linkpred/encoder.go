package main

import (
	"fmt"

	"github.com/gnngo/gnn/model"
)

// encoderSpec describes the node encoder of the link predictor as a model
// spec (package model): layers GraphConv, SAGEConv or GATConv (-model) from
// in features through -hidden (GAT: -heads concatenated heads of
// -hidden/-heads) to -out, ReLU (GAT: ELU) between the layers and none
// after the last, feature dropout on the input of every layer but the
// first, a self-loop per node for GCN and GAT in full-graph mode, destinations without
// in-edges allowed (sampled blocks, and nodes whose every edge went to
// validation or test). Layer l is named <model><l+1> and seeded with
// -seed + l. The model, trained, is what -save writes: model.Load and
// cmd/gnnserve then embed nodes with it (the dot decoder has no
// parameters).
func (o *options) encoderSpec(in, layers int, fanouts []int) (model.Spec, error) {
	// -minibatch trains on blocks as sampled, without self-loops.
	selfLoops := o.Model != "sage" && !o.Minibatch
	types := map[string]string{"gcn": model.GraphConv, "sage": model.SAGEConv, "gat": model.GATConv}
	typ, ok := types[o.Model]
	if !ok {
		return model.Spec{}, fmt.Errorf("-model %q: want gcn, sage or gat", o.Model)
	}
	widths := o.widths(in, layers)
	spec := model.Spec{Task: "link-prediction", InFeatures: in, SelfLoops: selfLoops, Fanouts: fanouts}
	for l := range layers {
		last := l == layers-1
		seed, dropSeed := o.Seed+uint64(l), o.Seed+100+uint64(l)
		ls := model.LayerSpec{Type: typ, Name: fmt.Sprintf("%s%d", o.Model, l+1), In: widths[l], Out: widths[l+1],
			AllowZeroInDegree: o.Model != "sage", Seed: &seed}
		if l > 0 && o.Dropout > 0 {
			ls.Dropout = o.Dropout
			if o.Model == "gcn" {
				ls.DropoutSeed = &dropSeed
			}
		}
		switch {
		case o.Model == "gat" && !last:
			ls.Heads, ls.Out, ls.Activation = o.Heads, widths[l+1]/o.Heads, "elu"
		case o.Model == "gat":
			ls.Heads = 1
		case !last:
			ls.Activation = "relu"
		}
		spec.Layers = append(spec.Layers, ls)
	}
	return spec, nil
}
