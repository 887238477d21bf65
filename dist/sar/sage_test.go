package sar_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
)

// sageModel is two SAGEConv layers with aggregator agg (the first
// projecting after aggregating, the second before) with a ReLU between.
func sageModel(agg sage.Aggregator, in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		l1, err := sage.New(eg, in, hidden, sage.WithName("s1"), sage.WithSeed(1), sage.WithAggregator(agg), sage.WithDtype(dt), sage.WithActivation(nn.ReLU))
		if err != nil {
			return nil, nil, err
		}
		l2, err := sage.New(eg, hidden, out, sage.WithName("s2"), sage.WithSeed(2), sage.WithAggregator(agg), sage.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		return twoLayers(g, x, l1, l2)
	}
}

func TestSAGEConvRMAT(t *testing.T) {
	p := newProblem(rmatGraph(t), 6, 3, 9)
	checkEquivalent(t, p, true, sageModel(sage.Mean, 6, 8, 3), tensor.Float64, tensor.Float32)
}

func TestSAGEConvCora(t *testing.T) {
	p := newProblem(coraGraph(t), 12, 7, 10)
	checkEquivalent(t, p, false, sageModel(sage.Mean, 12, 16, 7), tensor.Float64)
}

// TestSAGEConvGCN checks SAGEConv's gcn aggregator, which divides by the
// whole graph's in-degree plus one, on sharded graphs against one process.
func TestSAGEConvGCN(t *testing.T) {
	p := newProblem(rmatGraph(t), 6, 3, 21)
	checkEquivalent(t, p, true, sageModel(sage.GCN, 6, 8, 3), tensor.Float64, tensor.Float32)
}
