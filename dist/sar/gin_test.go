package sar_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gin"
)

// ginModel is two GINConvs with aggregator agg, each applying a linear map
// (the first with a learned ε and ELU), with the edge weights ew in both
// when ew is not nil.
func ginModel(agg gin.Aggregator, ew []float64, in, hidden, out int) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		linear := func(name string, seed uint64, rows, cols int) (nn.Activation, *gorgonia.Node, error) {
			v, err := nn.Glorot(dt, seed, 1, rows, cols)
			if err != nil {
				return nil, nil, err
			}
			w := nn.Param(eg, name, v)
			return func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(h, w) }, w, nil
		}
		f1, w1, err := linear("gin1.w", 1, in, hidden)
		if err != nil {
			return nil, nil, err
		}
		f2, w2, err := linear("gin2.w", 2, hidden, out)
		if err != nil {
			return nil, nil, err
		}
		l1, err := gin.New(eg, in, hidden, gin.WithName("gin1"), gin.WithAggregator(agg), gin.WithLearnEps(true), gin.WithEps(0.1),
			gin.WithApply(f1, w1), gin.WithActivation(nn.ELU), gin.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		l2, err := gin.New(eg, hidden, out, gin.WithName("gin2"), gin.WithAggregator(agg), gin.WithEps(0.2), gin.WithApply(f2, w2), gin.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		return twoMaybeWeighted(eg, g, x, ew, l1, l2)
	}
}

// TestGINConv checks GINConv on sharded graphs against one process, with
// the sum, mean and max aggregators, and with edge weights for sum and
// mean; the weighted max, which has no sharded path, is an error.
func TestGINConv(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 19)
	ew := randomWeights(g.NumEdges(), 9)
	for _, c := range []struct {
		agg gin.Aggregator
		ew  []float64
	}{{gin.Sum, nil}, {gin.Mean, nil}, {gin.Max, nil}, {gin.Sum, ew}, {gin.Mean, ew}} {
		t.Run(fmt.Sprintf("%v weighted %v", c.agg, c.ew != nil), func(t *testing.T) {
			checkEquivalent(t, p, true, ginModel(c.agg, c.ew, 6, 8, 3), tensor.Float64, tensor.Float32)
		})
	}
	expectUnsupported(t, p, "GIN's weighted max", ginModel(gin.Max, ew, 6, 8, 3))
}
