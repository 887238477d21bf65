package train_test

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
)

// ExampleFitBatches trains GraphSAGE by mini-batches of sampled neighbours
// on a generated graph, then evaluates it on the whole graph layer by layer.
func ExampleFitBatches() {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes = 2000
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		panic(err)
	}
	f := ds.Features
	feats := tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))
	// Two layers: 10 sampled neighbours for the input layer, 5 for the
	// output layer, whose destinations are the batch's training nodes.
	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{10, 5}, sampling.Options{})
	if err != nil {
		panic(err)
	}
	loader, err := sampling.NewLoader(sampler, ds.Train, sampling.LoaderOptions{BatchSize: 50, Shuffle: true, Seed: 1})
	if err != nil {
		panic(err)
	}
	// The model is rebuilt on every batch's graph; s keeps its parameters
	// and Adam state, and the rebuilt layers start from s's values.
	s, err := train.NewShared(0.01, 0)
	if err != nil {
		panic(err)
	}
	model := &sage.Stack{Widths: []int{f.Cols, 32, ds.NumClasses}, Values: s.Value}
	hist, err := train.FitBatches(model, s, loader, feats, ds.Labels, 10, nil, nil)
	if err != nil {
		panic(err)
	}
	logits, err := train.Inference(model, s, ds.Graph, feats, 512, nil)
	if err != nil {
		panic(err)
	}
	acc, err := nn.Accuracy(logits, ds.Labels, ds.Test)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d epochs of %d batches; parameters %v\n", len(hist), hist[0].Batches, s.Names())
	fmt.Println("test accuracy above 0.5:", acc > 0.5)
	// Output:
	// 10 epochs of 3 batches; parameters [sage1.fc_self.weight sage1.fc_neigh.weight sage1.bias sage2.fc_self.weight sage2.fc_neigh.weight sage2.bias]
	// test accuracy above 0.5: true
}
