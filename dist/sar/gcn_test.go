package sar_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
)

// gcnModel is two GraphConv layers (the first projecting after
// aggregating, the second before) with a ReLU between.
func gcnModel(norm gcn.Norm, in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		l1, err := gcn.New(eg, in, hidden, gcn.WithName("l1"), gcn.WithSeed(1), gcn.WithNorm(norm), gcn.WithDtype(dt), gcn.WithAllowZeroInDegree(true), gcn.WithActivation(nn.ReLU))
		if err != nil {
			return nil, nil, err
		}
		l2, err := gcn.New(eg, hidden, out, gcn.WithName("l2"), gcn.WithSeed(2), gcn.WithNorm(norm), gcn.WithDtype(dt), gcn.WithAllowZeroInDegree(true))
		if err != nil {
			return nil, nil, err
		}
		return twoLayers(g, x, l1, l2)
	}
}

func TestGraphConvRMAT(t *testing.T) {
	g := rmatGraph(t)
	for _, norm := range []gcn.Norm{gcn.Both, gcn.Right, gcn.Left, gcn.None} {
		t.Run(norm.String(), func(t *testing.T) {
			p := newProblem(g, 6, 3, 5)
			checkEquivalent(t, p, true, gcnModel(norm, 6, 8, 3), tensor.Float64, tensor.Float32)
		})
	}
}

// TestSelfLoops checks sar.WithSelfLoops against graph.AddSelfLoops.
func TestSelfLoops(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 5)
	var err error
	if p.single, err = g.AddSelfLoops(); err != nil {
		t.Fatal(err)
	}
	p.opts = []sar.Option{sar.WithSelfLoops(true)}
	checkEquivalent(t, p, true, gcnModel(gcn.Both, 6, 8, 3), tensor.Float64)
}

func TestGraphConvCora(t *testing.T) {
	g := coraGraph(t)
	p := newProblem(g, 12, 7, 6)
	checkEquivalent(t, p, false, gcnModel(gcn.Both, 12, 16, 7), tensor.Float64)
}
