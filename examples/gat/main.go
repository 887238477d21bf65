// Command gat trains a two-layer graph attention network (Veličković et al.,
// ICLR 2018) for node classification, full-graph, on gnn's fused ops. With no
// flags it trains on a generated planted-partition graph; with -data it
// trains on a Planetoid folder (Cora, CiteSeer, PubMed).
package main

import (
	"flag"
	"log"
	"os"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/train"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("gat: ")
	var (
		data     = flag.String("data", "", "Planetoid `dir` (e.g. ../shared/data/planetoid/cora); empty trains on a generated graph")
		epochs   = flag.Int("epochs", 200, "training epochs")
		lr       = flag.Float64("lr", 0.005, "Adam learning rate")
		hidden   = flag.Int("hidden", 8, "hidden features per head")
		heads    = flag.Int("heads", 8, "attention heads of the hidden layer")
		outHeads = flag.Int("out-heads", 1, "attention heads of the output layer (averaged)")
		dropout  = flag.Float64("dropout", 0.6, "feature and attention dropout probability")
		decay    = flag.Float64("weight-decay", 5e-4, "L2 weight decay")
		patience = flag.Int("patience", 100, "stop after this many epochs without better validation accuracy (0: never)")
		seed     = flag.Uint64("seed", 1, "random seed (initialisation, dropout, generated data)")
	)
	flag.Parse()
	ds, err := setup.Load(*data, *seed)
	if err != nil {
		log.Fatal(err)
	}
	setup.Describe(os.Stdout, ds)
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	x := setup.Features(eg, ds)
	l1, err := gat.New(eg, ds.Features.Cols, *hidden, gat.WithHeads(*heads), gat.WithMode(mode),
		gat.WithFeatDropout(*dropout), gat.WithAttnDropout(*dropout), gat.WithActivation(nn.ELU), gat.WithSeed(*seed))
	if err != nil {
		log.Fatal(err)
	}
	l2, err := gat.New(eg, *hidden**heads, ds.NumClasses, gat.WithHeads(*outHeads), gat.WithMode(mode),
		gat.WithFeatDropout(*dropout), gat.WithAttnDropout(*dropout), gat.WithMeanHeads(true), gat.WithSeed(*seed+10))
	if err != nil {
		log.Fatal(err)
	}
	h, err := l1.Forward(g, x)
	if err != nil {
		log.Fatal(err)
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		log.Fatal(err)
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		log.Fatal(err)
	}
	task := &train.Task{
		Logits: logits, Loss: loss, Mode: mode,
		Groups: []train.Group{{Params: append(l1.Learnables(), l2.Learnables()...), WeightDecay: *decay}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}
	res, err := train.Fit(task, train.Config{Epochs: *epochs, LearningRate: *lr, Patience: *patience}, setup.PrintEpoch(os.Stdout))
	if err != nil {
		log.Fatal(err)
	}
	setup.PrintResult(os.Stdout, res)
}
