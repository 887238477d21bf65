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
	"os"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

func main() {
	// The hyper-parameters of the paper.
	f := setup.Flags{Epochs: 200, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1}
	f.Register(flag.CommandLine)
	setup.Main("gcn", func() error {
		if err := f.Parse(flag.CommandLine, os.Args[1:]); err != nil {
			return err
		}
		return run(os.Stdout, &f)
	})
}

func run(w io.Writer, f *setup.Flags) error {
	if err := f.Check(); err != nil {
		return err
	}
	ds, err := setup.Load(f.Data, f.Seed)
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
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	in, err := setup.Features(eg, ds, f.Dense)
	if err != nil {
		return err
	}
	if err := f.Place(in); err != nil {
		return err
	}
	l1, err := gcn.New(eg, ds.Features.Cols, f.Hidden, gcn.WithName("gcn1"), gcn.WithSeed(f.Seed), gcn.WithActivation(nn.ReLU))
	if err != nil {
		return err
	}
	l2, err := gcn.New(eg, f.Hidden, ds.NumClasses, gcn.WithName("gcn2"), gcn.WithSeed(f.Seed+1))
	if err != nil {
		return err
	}
	var h *gorgonia.Node
	if in.Sparse != nil {
		x, err := in.Sparse.Dropout(f.Dropout, f.Seed+2, mode)
		if err != nil {
			return err
		}
		h, err = l1.ForwardSparse(g, x)
		if err != nil {
			return err
		}
	} else {
		if h, err = nn.Dropout(in.Dense, f.Dropout, f.Seed+2, mode); err != nil {
			return err
		}
		if h, err = l1.Forward(g, h); err != nil {
			return err
		}
	}
	if h, err = nn.Dropout(h, f.Dropout, f.Seed+3, mode); err != nil {
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
	// Weight decay on the first layer only, as in the paper.
	return f.Finish(w, "GCN on "+ds.Name, &train.Task{
		Logits: logits, Loss: loss, Mode: mode,
		Groups: []train.Group{{Params: l1.Learnables(), WeightDecay: f.WeightDecay}, {Params: l2.Learnables()}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	})
}
