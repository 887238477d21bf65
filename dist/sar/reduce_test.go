package sar_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/ops"
)

// reduceModel is the reducer red of x over g (ops.SpMM in one process,
// Reduce on a sharded graph), then a projection to out features.
func reduceModel(red ops.Reducer, in, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		h, err := nn.On(g, nn.Reduction{Red: red}, x, nil)
		if err != nil {
			return nil, nil, err
		}
		w := gradcheck.Input(eg, x.Dtype(), "w", []int{in, out}, gradcheck.Draw(rand.New(rand.NewPCG(3, 4)), in*out))
		y, err := nn.MatMul(h, w)
		return y, gorgonia.Nodes{w}, err
	}
}

// TestReduceMaxMin checks Max and Min on sharded graphs against one
// process, on features rounded to halves so that many messages tie: the
// winner (and so where the gradient goes) must be the smallest edge ID
// across shards, as in one process.
func TestReduceMaxMin(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 5, 3, 12)
	for i, v := range p.x {
		p.x[i] = math.Round(2*v) / 2
	}
	for _, red := range []ops.Reducer{ops.Max, ops.Min} {
		t.Run(red.String(), func(t *testing.T) {
			checkEquivalent(t, p, true, reduceModel(red, 5, 3), tensor.Float64, tensor.Float32)
		})
	}
	t.Run("cora", func(t *testing.T) {
		p := newProblem(coraGraph(t), 6, 4, 13)
		checkEquivalent(t, p, false, reduceModel(ops.Max, 6, 4), tensor.Float64)
	})
}

// sagePoolModel is two SAGEConv layers with the pool (max) aggregator.
func sagePoolModel(in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		l1, err := sage.New(eg, in, hidden, sage.WithName("p1"), sage.WithSeed(1), sage.WithAggregator(sage.Pool), sage.WithDtype(dt), sage.WithActivation(nn.ReLU))
		if err != nil {
			return nil, nil, err
		}
		l2, err := sage.New(eg, hidden, out, sage.WithName("p2"), sage.WithSeed(2), sage.WithAggregator(sage.Pool), sage.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		return twoLayers(g, x, l1, l2)
	}
}

func TestSAGEConvPool(t *testing.T) {
	p := newProblem(rmatGraph(t), 6, 3, 14)
	checkEquivalent(t, p, true, sagePoolModel(6, 8, 3), tensor.Float64)
}

// edgeWeights returns the weights of g's edges as a constant vector: ew
// holds one per edge of the whole graph, and a sharded graph takes its
// rows by EdgeIDs.
func edgeWeights(eg *gorgonia.ExprGraph, g nn.Graph, dt tensor.Dtype, ew []float64) (*gorgonia.Node, error) {
	rows := ew
	if s, ok := g.(nn.Sharded); ok {
		ids := s.EdgeIDs()
		rows = make([]float64, len(ids))
		for i, e := range ids {
			rows[i] = ew[e]
		}
	}
	return gradcheck.Input(eg, dt, "ew", []int{len(rows)}, rows), nil
}

// weightedModel is a GraphConv with edge weights (norm both), then a SAGEConv
// whose weighted aggregator is agg.
func weightedModel(ew []float64, agg sage.Aggregator, in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		w, err := edgeWeights(eg, g, dt, ew)
		if err != nil {
			return nil, nil, err
		}
		l1, err := gcn.New(eg, in, hidden, gcn.WithName("w1"), gcn.WithSeed(1), gcn.WithDtype(dt), gcn.WithAllowZeroInDegree(true), gcn.WithActivation(nn.ReLU))
		if err != nil {
			return nil, nil, err
		}
		l2, err := sage.New(eg, hidden, out, sage.WithName("w2"), sage.WithSeed(2), sage.WithAggregator(agg), sage.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		return twoWeighted(g, x, w, l1, l2)
	}
}

// TestEdgeWeights checks GraphConv and SAGEConv with edge weights on
// sharded graphs against one process, with self-loops added on both
// sides (their weights found by EdgeIDs as graph.AddSelfLoops numbers
// them).
func TestEdgeWeights(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 15)
	var err error
	if p.single, err = g.AddSelfLoops(); err != nil {
		t.Fatal(err)
	}
	p.opts = []sar.Option{sar.WithSelfLoops(true)}
	ew := randomWeights(p.single.NumEdges(), 5)
	for _, agg := range []sage.Aggregator{sage.Mean} {
		checkEquivalent(t, p, true, weightedModel(ew, agg, 6, 8, 3), tensor.Float64, tensor.Float32)
	}
}
