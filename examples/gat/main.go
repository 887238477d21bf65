// Command gat trains a two-layer graph attention network (Veličković et al.,
// ICLR 2018) for node classification, full-graph, on gnn's fused ops. With no
// flags it trains on a generated planted-partition graph; with -data it
// trains on a Planetoid folder (Cora, CiteSeer, PubMed) or an OGB one
// (ogbn-arxiv, ogbn-products). Its defaults are the paper's settings for
// Cora and CiteSeer; on PubMed, those of -out-heads, -lr and -weight-decay
// not given become the paper's PubMed settings (8 output heads, 0.01,
// 0.001), and a line says so. It prints one line per epoch, then
// "test accuracy: 0.xxxx" (a format,
// not a promised figure), the test accuracy at the epoch of best
// validation accuracy, then the files it wrote. -save writes the model with
// that epoch's parameters as a model file (package model: the architecture
// too, so model.Load and cmd/gnnserve run it without this program); -load
// reads it back (or a parameter file of nn.SaveParams), to evaluate
// (-epochs 0) or to train on from there.
package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn/train"
)

// heads are the attention heads of the two layers.
type heads struct{ hidden, out int }

func main() {
	// The hyper-parameters of the paper for Cora and CiteSeer.
	f := setup.Flags{Epochs: 300, LR: 0.005, Hidden: 8, Dropout: 0.6, WeightDecay: 5e-4, Patience: 100, Seed: 1}
	h := heads{hidden: 8, out: 1}
	fs := flagSet(flag.CommandLine, &f, &h)
	setup.ParseAndRun("gat", &f, fs, func(w io.Writer) error { return run(w, &f, h) })
}

// flagSet adds the shared flags and the heads to fs and returns it.
func flagSet(fs *flag.FlagSet, f *setup.Flags, h *heads) *flag.FlagSet {
	f.Register(fs)
	f.RegisterSplit(fs)
	fs.IntVar(&h.hidden, "heads", h.hidden, "attention heads of the hidden layer (concatenated)")
	fs.IntVar(&h.out, "out-heads", h.out, "attention heads of the output layer (averaged; 8 on PubMed unless given)")
	return fs
}

func run(w io.Writer, f *setup.Flags, h heads) error {
	if err := f.Check(); err != nil {
		return err
	}
	if h.hidden <= 0 {
		return fmt.Errorf("-heads %d: want at least 1 attention head", h.hidden)
	}
	if h.out <= 0 {
		return fmt.Errorf("-out-heads %d: want at least 1 attention head", h.out)
	}
	ds, err := f.LoadData()
	if err != nil {
		return err
	}
	if err := setup.CheckModelSize("-hidden and -heads", ds.Graph.NumNodes(), ds.Features.Cols, f.Hidden, h.hidden, 2); err != nil {
		return err
	}
	setup.Describe(w, ds)
	if ds.Name == "pubmed" {
		pubmedSettings(w, f, &h)
	}
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		return err
	}
	return f.TrainTwoLayers(w, "GAT on "+ds.Name, ds, g, Spec(ds.Features.Cols, f.Hidden, h, ds.NumClasses, f.Dropout, f.Seed), f.Seed,
		func(p1, p2 gorgonia.Nodes) []train.Group {
			return []train.Group{{Params: append(p1, p2...), WeightDecay: f.WeightDecay}}
		})
}

// Spec is the model of the paper: a GATConv of h.hidden concatenated heads
// of hidden features with ELU, then a GATConv of h.out averaged heads of
// classes, both with feature and attention dropout, self-loops added to the
// graph. The layers are seeded seed and seed+10 (their dropout too).
func Spec(in, hidden int, h heads, classes int, dropout float64, seed uint64) model.Spec {
	s1, s2 := seed, seed+10
	return model.Spec{Task: "node", InFeatures: in, Classes: classes, SelfLoops: true, Layers: []model.LayerSpec{
		{Type: model.GATConv, Name: "gat1", In: in, Out: hidden, Heads: h.hidden, Activation: "elu", Dropout: dropout, AttnDropout: dropout, Seed: &s1},
		{Type: model.GATConv, Name: "gat2", In: hidden * h.hidden, Out: classes, Heads: h.out, MeanHeads: true, Dropout: dropout, AttnDropout: dropout, Seed: &s2},
	}}
}

// pubmedSettings switches the settings the GAT paper changes for PubMed
// (8 averaged output heads, learning rate 0.01, weight decay 0.001) unless
// they were given on the command line, and says which it switched.
func pubmedSettings(w io.Writer, f *setup.Flags, h *heads) {
	var changed []string
	if !f.Given("out-heads") {
		h.out = 8
		changed = append(changed, "-out-heads 8")
	}
	if !f.Given("lr") {
		f.LR = 0.01
		changed = append(changed, "-lr 0.01")
	}
	if !f.Given("weight-decay") {
		f.WeightDecay = 0.001
		changed = append(changed, "-weight-decay 0.001")
	}
	if len(changed) > 0 {
		fmt.Fprintf(w, "pubmed: the GAT paper's settings for PubMed: %s\n", strings.Join(changed, " "))
	}
}
