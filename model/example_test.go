package model_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
)

// ExampleLoad saves a two-layer GCN and loads it back: the loaded model
// knows its architecture and predicts the same scores, with no code of the
// program that built it.
func ExampleLoad() {
	spec := model.Spec{InFeatures: 3, Classes: 2, SelfLoops: true, Layers: []model.LayerSpec{
		{Type: model.GraphConv, In: 3, Out: 4, Activation: "relu", Dropout: 0.5},
		{Type: model.GraphConv, In: 4, Out: 2},
	}}
	m, err := model.New(spec, tensor.Float64, 1)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "gcn.gnnmodel")
	if err := m.Save(path); err != nil {
		log.Fatal(err)
	}

	loaded, err := model.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3}, []int32{1, 2, 3, 0})
	if err != nil {
		log.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}))
	a, err := m.Predict(g, x)
	if err != nil {
		log.Fatal(err)
	}
	b, err := loaded.Predict(g, x)
	if err != nil {
		log.Fatal(err)
	}
	s := loaded.Spec()
	fmt.Println("layers:", s.Layers[0].Name, s.Layers[0].Type, "->", s.Layers[1].Name, s.Layers[1].Type)
	fmt.Println("parameters:", loaded.ParamNames())
	fmt.Println("output:", b.Shape(), "same as saved:", fmt.Sprint(a.Data()) == fmt.Sprint(b.Data()))
	// Output:
	// layers: gcn1 GraphConv -> gcn2 GraphConv
	// parameters: [gcn1.weight gcn1.bias gcn2.weight gcn2.bias]
	// output: (4, 2) same as saved: true
}
