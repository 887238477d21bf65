package sar_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/appnp"
	"github.com/gnngo/gnn/nn/tag"
)

// diffusionModel is a TAGConv of 2 hops (ReLU) then an APPNPConv of 3
// steps, with the edge weights ew in both when ew is not nil.
func diffusionModel(ew []float64, in, out int, opts ...appnp.Option) model {
	return func(eg *gorgonia.ExprGraph, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		dt := x.Dtype()
		l1, err := tag.New(eg, in, out, tag.WithName("tag1"), tag.WithSeed(1), tag.WithK(2), tag.WithActivation(nn.ReLU), tag.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		l2, err := appnp.New(3, 0.1, append([]appnp.Option{appnp.WithName("appnp2")}, opts...)...)
		if err != nil {
			return nil, nil, err
		}
		return twoMaybeWeighted(eg, g, x, ew, l1, l2)
	}
}

// TestTAGConvAPPNP checks TAGConv and APPNPConv on sharded graphs, with and
// without edge weights, against one process (the whole graph's in- and
// out-degrees in the normalisations); APPNP's edge dropout, which has no
// sharded path, is an error.
func TestTAGConvAPPNP(t *testing.T) {
	g := rmatGraph(t)
	p := newProblem(g, 6, 3, 23)
	for _, ew := range [][]float64{nil, randomWeights(g.NumEdges(), 11)} {
		t.Run(fmt.Sprintf("weighted %v", ew != nil), func(t *testing.T) {
			checkEquivalent(t, p, true, diffusionModel(ew, 6, 3), tensor.Float64, tensor.Float32)
		})
	}
	expectUnsupported(t, p, "APPNP's edge dropout", diffusionModel(nil, 6, 3, appnp.WithEdgeDropout(0.5), appnp.WithMode(nn.NewMode())))
}
