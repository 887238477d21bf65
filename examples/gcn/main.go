// Command gcn trains a two-layer graph convolutional network (Kipf and
// Welling, ICLR 2017) for node classification, full-graph, on gnn's fused
// ops. With no flags it trains on a generated planted-partition graph; with
// -data it trains on a Planetoid folder (Cora, CiteSeer, PubMed).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

func main() {
	var (
		data     = flag.String("data", "", "Planetoid `dir` (e.g. ../shared/data/planetoid/cora); empty trains on a generated graph")
		epochs   = flag.Int("epochs", 200, "training epochs")
		lr       = flag.Float64("lr", 0.01, "Adam learning rate")
		hidden   = flag.Int("hidden", 16, "hidden features")
		dropout  = flag.Float64("dropout", 0.5, "dropout probability")
		decay    = flag.Float64("weight-decay", 5e-4, "L2 weight decay of the first layer")
		patience = flag.Int("patience", 0, "stop after this many epochs without better validation accuracy (0: never)")
		seed     = flag.Uint64("seed", 1, "random seed (initialisation, dropout, generated data)")
	)
	flag.Parse()
	if err := run(*data, *epochs, *lr, *hidden, *dropout, *decay, *patience, *seed); err != nil {
		log.Fatal(err)
	}
}

func run(data string, epochs int, lr float64, hidden int, dropout, decay float64, patience int, seed uint64) error {
	ds, err := setup.Load(data, seed)
	if err != nil {
		return err
	}
	setup.Describe(os.Stdout, ds)
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		return err
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	x := setup.Features(eg, ds)
	l1, err := gcn.New(eg, ds.Features.Cols, hidden, gcn.WithSeed(seed), gcn.WithActivation(gorgonia.Rectify))
	if err != nil {
		return err
	}
	l2, err := gcn.New(eg, hidden, ds.NumClasses, gcn.WithSeed(seed+1))
	if err != nil {
		return err
	}
	h, err := nn.Dropout(x, dropout, seed+2, mode)
	if err != nil {
		return err
	}
	if h, err = l1.Forward(g, h); err != nil {
		return err
	}
	if h, err = nn.Dropout(h, dropout, seed+3, mode); err != nil {
		return err
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		return err
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		return err
	}
	task := &train.Task{
		Logits: logits, Loss: loss, Mode: mode,
		Groups: []train.Group{{Params: l1.Learnables(), WeightDecay: decay}, {Params: l2.Learnables()}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}
	res, err := train.Fit(task, train.Config{Epochs: epochs, LearningRate: lr, Patience: patience}, setup.PrintEpoch(os.Stdout))
	if err != nil {
		return err
	}
	setup.PrintResult(os.Stdout, res)
	return nil
}

func init() { log.SetFlags(0); log.SetPrefix(fmt.Sprintf("%s: ", "gcn")) }
