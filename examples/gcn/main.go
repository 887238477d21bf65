// Command gcn trains a two-layer graph convolutional network (Kipf and
// Welling, ICLR 2017) for node classification, full-graph, on gnn's fused
// ops. With no flags it trains on a generated planted-partition graph; with
// -data it trains on a Planetoid folder (Cora, CiteSeer, PubMed) or an OGB
// one (ogbn-arxiv, ogbn-products). It prints one line per epoch, then
// "test accuracy: 0.xxxx" (a format, not a promised figure), the test accuracy at the epoch of best
// validation accuracy, then the files it wrote. -save writes that epoch's
// parameters; -load reads them back, to evaluate (-epochs 0) or to train
// on from there.
package main

import (
	"flag"
	"io"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn/train"
)

func main() {
	// The hyper-parameters of the paper.
	f := setup.Flags{Epochs: 200, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1}
	f.Register(flag.CommandLine)
	f.RegisterSplit(flag.CommandLine)
	setup.ParseAndRun("gcn", &f, flag.CommandLine, func(w io.Writer) error { return run(w, &f) })
}

func run(w io.Writer, f *setup.Flags) error {
	if err := f.Check(); err != nil {
		return err
	}
	ds, err := f.LoadData()
	if err != nil {
		return err
	}
	if err := setup.CheckModelSize("-hidden", ds.Graph.NumNodes(), ds.Features.Cols, f.Hidden, 1, 2); err != nil {
		return err
	}
	setup.Describe(w, ds)
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		return err
	}
	// Weight decay on the first layer only, as in the paper.
	return f.TrainTwoLayers(w, "GCN on "+ds.Name, ds, g, Spec(ds.Features.Cols, f.Hidden, ds.NumClasses, f.Dropout, f.Seed), f.Seed,
		func(p1, p2 gorgonia.Nodes) []train.Group {
			return []train.Group{{Params: p1, WeightDecay: f.WeightDecay}, {Params: p2}}
		})
}

// Spec is the model: two GraphConv layers of the paper (in -> hidden with
// ReLU -> classes), dropout on the input of each, self-loops added to the
// graph. The layers are seeded seed and seed+1 and the dropouts seed+2 and
// seed+3, so that runs are reproducible (and those of the program before it
// built its model from a spec are reproduced bit for bit).
func Spec(in, hidden, classes int, dropout float64, seed uint64) model.Spec {
	seeds := []uint64{seed, seed + 1, seed + 2, seed + 3}
	layers := []model.LayerSpec{
		{Type: model.GraphConv, Name: "gcn1", In: in, Out: hidden, Activation: "relu", Dropout: dropout, Seed: &seeds[0]},
		{Type: model.GraphConv, Name: "gcn2", In: hidden, Out: classes, Dropout: dropout, Seed: &seeds[1]},
	}
	if dropout > 0 {
		layers[0].DropoutSeed, layers[1].DropoutSeed = &seeds[2], &seeds[3]
	}
	return model.Spec{Task: "node", InFeatures: in, Classes: classes, SelfLoops: true, Layers: layers}
}
