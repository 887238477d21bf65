package train_test

import (
	"fmt"
	"os"
	"path/filepath"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

// buildGCN builds a two-layer GCN on ds. Its layers are left unnamed: their
// default names ("gcn1", "gcn2") depend on this model alone, so a file
// saved from one build loads into another.
func buildGCN(ds *dataset.Dataset) (*train.Task, gorgonia.Nodes, error) {
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		return nil, nil, err
	}
	eg := gorgonia.NewGraph()
	f := ds.Features
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))))
	l1, err := gcn.New(eg, f.Cols, 16, gcn.WithSeed(1), gcn.WithActivation(nn.ReLU))
	if err != nil {
		return nil, nil, err
	}
	l2, err := gcn.New(eg, 16, ds.NumClasses, gcn.WithSeed(2))
	if err != nil {
		return nil, nil, err
	}
	h, err := l1.Forward(g, x)
	if err != nil {
		return nil, nil, err
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		return nil, nil, err
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		return nil, nil, err
	}
	params := append(l1.Learnables(), l2.Learnables()...)
	return &train.Task{
		Logits: logits, Loss: loss, Groups: []train.Group{{Params: params, WeightDecay: 5e-4}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}, params, nil
}

// Train a model, save its parameters, and load them into the same model
// built again: the reloaded model gives the test accuracy Fit reported,
// because Fit leaves the model with the weights of its best epoch.
func ExampleEvaluate() {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 600, 32
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		panic(err)
	}
	task, params, err := buildGCN(ds)
	if err != nil {
		panic(err)
	}
	res, err := train.Fit(task, train.Config{Epochs: 50, LearningRate: 0.01, Patience: 10}, nil)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "gnn-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "gcn.params")
	if err := nn.SaveParams(path, params); err != nil {
		panic(err)
	}

	// Later, or in another process: build the model again and load.
	task2, params2, err := buildGCN(ds)
	if err != nil {
		panic(err)
	}
	if err := nn.LoadParams(path, params2); err != nil {
		panic(err)
	}
	e, err := train.Evaluate(task2)
	if err != nil {
		panic(err)
	}
	fmt.Println("parameters:", params2)
	fmt.Println("same test accuracy:", e.TestAcc == res.Test)
	// Output:
	// parameters: [gcn1.weight, gcn1.bias, gcn2.weight, gcn2.bias]
	// same test accuracy: true
}
