package sar_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
)

// gatModel is a GATConv of 8 heads (ELU, optionally with a residual
// projection) followed by a one-head GATConv, attention dropout off.
func gatModel(in, hidden, out int, residual bool) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		l1, err := gat.New(eg, in, hidden, gat.WithName("g1"), gat.WithSeed(1), gat.WithHeads(8), gat.WithDtype(dt), gat.WithAllowZeroInDegree(true), gat.WithActivation(nn.ELU), gat.WithResidual(residual))
		if err != nil {
			return nil, nil, err
		}
		l2, err := gat.New(eg, 8*hidden, out, gat.WithName("g2"), gat.WithSeed(2), gat.WithDtype(dt), gat.WithAllowZeroInDegree(true), gat.WithNegativeSlope(0.1))
		if err != nil {
			return nil, nil, err
		}
		return twoLayers(g, x, l1, l2)
	}
}

func TestGATConvRMAT(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 7)
	checkEquivalent(t, p, true, gatModel(6, 4, 3, false), tensor.Float64, tensor.Float32)
	t.Run("residual", func(t *testing.T) {
		checkEquivalent(t, p, true, gatModel(6, 4, 3, true), tensor.Float64)
	})
}

func TestGATConvCora(t *testing.T) {
	g := coraGraph(t)
	p := newProblem(g, 12, 7, 8)
	checkEquivalent(t, p, false, gatModel(12, 4, 7, false), tensor.Float64)
}

// gatDropoutModel is gatModel's two layers with feature and attention
// dropout in training, at step 3 of mode: the masks on a sharded graph
// must be those of one process.
func gatDropoutModel(in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		mode := nn.NewMode()
		for range 3 {
			mode.Next()
		}
		common := []gat.Option{gat.WithDtype(dt), gat.WithAllowZeroInDegree(true), gat.WithMode(mode), gat.WithFeatDropout(0.3), gat.WithAttnDropout(0.4)}
		l1, err := gat.New(eg, in, hidden, append(common, gat.WithName("g1"), gat.WithSeed(1), gat.WithHeads(8), gat.WithActivation(nn.ELU))...)
		if err != nil {
			return nil, nil, err
		}
		l2, err := gat.New(eg, 8*hidden, out, append(common, gat.WithName("g2"), gat.WithSeed(2))...)
		if err != nil {
			return nil, nil, err
		}
		return twoLayers(g, x, l1, l2)
	}
}

// TestGATConvDropout checks that feature and attention dropout on 1, 2,
// 3, 4 and 8 workers give one process's output and gradients: the masks
// are drawn by global node and edge IDs.
func TestGATConvDropout(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 9)
	checkEquivalent(t, p, true, gatDropoutModel(6, 4, 3), tensor.Float64)
	t.Run("cora", func(t *testing.T) {
		p := newProblem(coraGraph(t), 12, 7, 10)
		checkEquivalent(t, p, false, gatDropoutModel(12, 4, 7), tensor.Float64)
	})
}

// gatWeightedModel is two GATConvs (2 heads, then 1) whose attention is
// multiplied by the edge weights ew (ForwardWeighted).
func gatWeightedModel(ew []float64, in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		w, err := edgeWeights(eg, g, dt, ew)
		if err != nil {
			return nil, nil, err
		}
		l1, err := gat.New(eg, in, hidden, gat.WithName("gw1"), gat.WithSeed(1), gat.WithHeads(2), gat.WithDtype(dt), gat.WithAllowZeroInDegree(true), gat.WithActivation(nn.ELU))
		if err != nil {
			return nil, nil, err
		}
		l2, err := gat.New(eg, 2*hidden, out, gat.WithName("gw2"), gat.WithSeed(2), gat.WithDtype(dt), gat.WithAllowZeroInDegree(true))
		if err != nil {
			return nil, nil, err
		}
		return twoWeighted(g, x, w, l1, l2)
	}
}

// TestGATEdgeWeights checks GATConv with edge weights on sharded graphs
// against one process, in both modes: the sequential op multiplies each
// shard's attention by its edges' weights; one-shot runs the layer's
// single-process ops on the worker's block.
func TestGATEdgeWeights(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 17)
	checkEquivalent(t, p, true, gatWeightedModel(randomWeights(g.NumEdges(), 7), 6, 4, 3), tensor.Float64, tensor.Float32)
}
