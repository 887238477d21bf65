package model_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
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

// ExampleModel_Forward trains a two-layer GCN built from a spec on a
// generated graph, saves it and serves it from the file: the loaded model
// predicts the accuracy training reported.
func ExampleModel_Forward() {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Seed = 500, 1
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		log.Fatal(err)
	}
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		log.Fatal(err)
	}
	f := ds.Features
	x := tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))

	spec := model.Spec{InFeatures: f.Cols, Classes: ds.NumClasses, SelfLoops: true, Layers: []model.LayerSpec{
		{Type: model.GraphConv, In: f.Cols, Out: 16, Activation: "relu", Dropout: 0.5},
		{Type: model.GraphConv, In: 16, Out: ds.NumClasses, Dropout: 0.5},
	}}
	m, err := model.New(spec, tensor.Float32, 1)
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	logits, params, err := m.Forward(eg, g, gorgonia.NodeFromAny(eg, x, gorgonia.WithName("x")))
	if err != nil {
		log.Fatal(err)
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		log.Fatal(err)
	}
	res, err := train.Fit(&train.Task{Logits: logits, Loss: loss, Mode: m.Mode(), Groups: []train.Group{{Params: params, WeightDecay: 5e-4}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test}, train.Config{Epochs: 50, LearningRate: 0.01}, nil)
	if err != nil {
		log.Fatal(err)
	}
	// The optimiser may have moved the values to new tensors: copy them
	// into the model before saving.
	vals := map[string]*tensor.Dense{}
	for _, p := range params {
		vals[p.Name()] = p.Value().(*tensor.Dense)
	}
	if err := m.SetParams(vals); err != nil {
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

	served, err := model.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	scores, err := served.Predict(ds.Graph, x) // self-loops added, as trained
	if err != nil {
		log.Fatal(err)
	}
	acc, err := nn.Accuracy(scores, ds.Labels, ds.Test)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("trained: %.4f, served from the file: %.4f\n", res.Test, acc)
	// Output:
	// trained: 0.8586, served from the file: 0.8586
}
