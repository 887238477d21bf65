package main

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/sage"
)

// encoder is the node encoder of the link predictor: a stack of GraphConv,
// SAGEConv or GATConv layers, built afresh on every expression graph (the
// negatives, and in -minibatch the blocks, change every step) with its
// parameters taken from values (a train.Shared's Value), so that it
// satisfies nn/train's Stack for the full graph and for sampled blocks
// alike. Widths[0] is the input width, Widths[l+1] layer l's output;
// ReLU (ELU for GAT) between layers, none after the last, and feature
// dropout on the input of every layer but the first.
type encoder struct {
	kind    string
	widths  []int
	heads   int
	dropout float64
	mode    *nn.Mode
	values  nn.Values
	seed    uint64
	// zeroIn allows destinations without in-edges (sampled blocks, and
	// nodes whose every edge went to validation or test).
	zeroIn bool
}

// NumLayers returns the number of layers.
func (e *encoder) NumLayers() int { return len(e.widths) - 1 }

// Layer adds layer l to eg and applies it to x on g.
func (e *encoder) Layer(eg *gorgonia.ExprGraph, l int, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	in, out := e.widths[l], e.widths[l+1]
	last := l == e.NumLayers()-1
	name := fmt.Sprintf("%s%d", e.kind, l+1)
	seed := e.seed + uint64(l)
	if l > 0 && e.dropout > 0 {
		var err error
		if x, err = nn.Dropout(x, e.dropout, e.seed+100+uint64(l), e.mode); err != nil {
			return nil, nil, err
		}
	}
	switch e.kind {
	case "gcn":
		opts := []gcn.Option{gcn.WithName(name), gcn.WithSeed(seed), gcn.WithAllowZeroInDegree(e.zeroIn)}
		if !last {
			opts = append(opts, gcn.WithActivation(nn.ReLU))
		}
		if e.values != nil {
			opts = append(opts, gcn.WithValues(e.values))
		}
		layer, err := gcn.New(eg, in, out, opts...)
		if err != nil {
			return nil, nil, err
		}
		h, err := layer.Forward(g, x)
		return h, layer.Learnables(), err
	case "sage":
		opts := []sage.Option{sage.WithName(name), sage.WithSeed(seed)}
		if !last {
			opts = append(opts, sage.WithActivation(nn.ReLU))
		}
		if e.values != nil {
			opts = append(opts, sage.WithValues(e.values))
		}
		layer, err := sage.New(eg, in, out, opts...)
		if err != nil {
			return nil, nil, err
		}
		h, err := layer.Forward(g, x)
		return h, layer.Learnables(), err
	case "gat":
		heads := e.heads
		if last {
			heads = 1
		}
		opts := []gat.Option{gat.WithName(name), gat.WithSeed(seed), gat.WithHeads(heads), gat.WithAllowZeroInDegree(e.zeroIn)}
		if !last {
			opts = append(opts, gat.WithActivation(nn.ELU))
		}
		if e.values != nil {
			opts = append(opts, gat.WithValues(e.values))
		}
		layer, err := gat.New(eg, in, out/heads, opts...)
		if err != nil {
			return nil, nil, err
		}
		h, err := layer.Forward(g, x)
		return h, layer.Learnables(), err
	}
	return nil, nil, fmt.Errorf("-model %q: want gcn, sage or gat", e.kind)
}
