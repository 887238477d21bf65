// Command gat trains a two-layer graph attention network (Veličković et al.,
// ICLR 2018) for node classification, full-graph, on gnn's fused ops. With no
// flags it trains on a generated planted-partition graph; with -data it
// trains on a Planetoid folder (Cora, CiteSeer, PubMed) or an OGB one
// (ogbn-arxiv, ogbn-products). It prints one line per epoch and ends with "test accuracy: 0.8123", the test accuracy at the
// epoch of best validation accuracy.
package main

import (
	"flag"
	"io"
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
	// The hyper-parameters of the paper for Cora and CiteSeer.
	f := setup.Flags{Epochs: 300, LR: 0.005, Hidden: 8, Heads: 8, Dropout: 0.6, WeightDecay: 5e-4, Patience: 100, Seed: 1}
	f.Register(flag.CommandLine)
	outHeads := flag.Int("out-heads", 1, "attention heads of the output layer (averaged)")
	flag.Parse()
	if err := run(os.Stdout, &f, *outHeads); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, f *setup.Flags, outHeads int) error {
	ds, err := setup.Load(f.Data, f.Seed)
	if err != nil {
		return err
	}
	setup.Describe(w, ds)
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		return err
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	in, err := setup.Features(eg, ds, f.Dense)
	if err != nil {
		return err
	}
	l1, err := gat.New(eg, ds.Features.Cols, f.Hidden, gat.WithName("gat1"), gat.WithHeads(f.Heads), gat.WithMode(mode),
		gat.WithFeatDropout(f.Dropout), gat.WithAttnDropout(f.Dropout), gat.WithActivation(nn.ELU), gat.WithSeed(f.Seed))
	if err != nil {
		return err
	}
	l2, err := gat.New(eg, f.Hidden*f.Heads, ds.NumClasses, gat.WithName("gat2"), gat.WithHeads(outHeads), gat.WithMode(mode),
		gat.WithFeatDropout(f.Dropout), gat.WithAttnDropout(f.Dropout), gat.WithMeanHeads(true), gat.WithSeed(f.Seed+10))
	if err != nil {
		return err
	}
	var h *gorgonia.Node
	if in.Sparse != nil {
		h, err = l1.ForwardSparse(g, in.Sparse)
	} else {
		h, err = l1.Forward(g, in.Dense)
	}
	if err != nil {
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
	return f.Finish(w, "GAT on "+ds.Name, &train.Task{
		Logits: logits, Loss: loss, Mode: mode,
		Groups: []train.Group{{Params: append(l1.Learnables(), l2.Learnables()...), WeightDecay: f.WeightDecay}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	})
}
