package model_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/model"
)

// BenchmarkPredict measures a whole-graph Predict (building the expression
// graph, binding the parameters, running it) of two-layer GCN, SAGE and GAT
// models on a random graph, in nodes per second.
func BenchmarkPredict(b *testing.B) {
	const n, deg, f, hidden, classes = 10000, 10, 64, 64, 8
	g := testgraphs.Random(b, rand.New(rand.NewPCG(1, 2)), n, n, n*deg)
	x := features(tensor.Float32, n, f, 3)
	specs := []struct {
		name string
		spec model.Spec
	}{
		{"gcn", model.Spec{InFeatures: f, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GraphConv, In: f, Out: hidden, Activation: "relu", Dropout: 0.5},
			{Type: model.GraphConv, In: hidden, Out: classes}}}},
		{"sage", model.Spec{InFeatures: f, Layers: []model.LayerSpec{
			{Type: model.SAGEConv, In: f, Out: hidden, Activation: "relu"},
			{Type: model.SAGEConv, In: hidden, Out: classes, Dropout: 0.5}}}},
		{"gat", model.Spec{InFeatures: f, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GATConv, In: f, Out: hidden / 8, Heads: 8, Activation: "elu", Dropout: 0.6},
			{Type: model.GATConv, In: hidden, Out: classes, MeanHeads: true}}}},
	}
	for _, s := range specs {
		b.Run(fmt.Sprintf("model=%s/n=%d/deg=%d/f=%d", s.name, n, deg, f), func(b *testing.B) {
			m, err := model.New(s.spec, tensor.Float32, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := m.Predict(g, x); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
