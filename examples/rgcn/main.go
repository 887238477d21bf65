// Command rgcn trains a two-layer R-GCN (Schlichtkrull et al., 2018) for
// node classification on a heterograph, full-graph: the heterograph is
// converted to homogeneous form with a relation per edge, and each
// RelGraphConv layer runs one dense product and one fused aggregation per
// relation. It trains on a generated heterograph shaped like ogbn-mag
// (papers, authors, institutions, fields of study; writes, cites,
// has_topic, affiliated_with and their reverses) with a planted class per
// paper; paper features are noisy class centres, the other node types
// learn an embedding, as in DGL's ogbn-mag example. -scale multiplies the
// node counts. It prints one line per epoch, then "test accuracy: 0.8123",
// the test accuracy at the epoch of best validation accuracy.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/train"
)

// options are rgcn's own flags.
type options struct {
	Bases int // 0: a full weight per relation
	Scale int
}

func main() {
	f := setup.Flags{Epochs: 60, LR: 0.01, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1}
	o := options{Scale: 1}
	f.Register(flag.CommandLine)
	flag.IntVar(&o.Bases, "bases", o.Bases, "basis decomposition with this many bases (0: one full weight per relation)")
	flag.IntVar(&o.Scale, "scale", o.Scale, "multiply the generated graph's node counts by this")
	setup.Main("rgcn", func() error {
		if err := f.Parse(flag.CommandLine, os.Args[1:]); err != nil {
			return err
		}
		return run(os.Stdout, &f, o)
	})
}

func run(w io.Writer, f *setup.Flags, o options) error {
	if err := f.Check(); err != nil {
		return err
	}
	if f.Data != "" {
		return fmt.Errorf("-data %s: rgcn trains on a generated heterograph only; loading one is not supported yet", f.Data)
	}
	if o.Bases < 0 || o.Scale <= 0 {
		return fmt.Errorf("-bases %d -scale %d: want bases >= 0 and a positive scale", o.Bases, o.Scale)
	}
	shape := smallMag
	shape.Papers *= o.Scale
	shape.Authors *= o.Scale
	shape.Institutions *= o.Scale
	shape.Fields *= o.Scale
	m, err := generateMag(shape, f.Seed)
	if err != nil {
		return err
	}
	h := m.Graph
	hom, err := h.ToHomogeneous()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "dataset generated ogbn-mag shape: %s; %d features, %d classes, train/val/test %d/%d/%d\n",
		h, shape.Features, shape.Classes, len(m.Train), len(m.Val), len(m.Test))
	numRels := h.NumEdgeTypes()
	norm, err := rgcn.RightNorm(hom.Graph, hom.EdgeType, numRels)
	if err != nil {
		return err
	}
	rel, err := rgcn.Group(hom.Graph, hom.EdgeType, numRels, norm)
	if err != nil {
		return err
	}

	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	// Inputs in homogeneous order: paper features, learnt embeddings of
	// the other types.
	var parts, embeds gorgonia.Nodes
	paper := -1
	for i, nt := range h.NodeTypes() {
		n := h.NodeCount(i)
		if nt == "paper" {
			paper = i
			parts = append(parts, gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, shape.Features), gorgonia.WithName("paper.feat"),
				gorgonia.WithValue(tensor.New(tensor.WithShape(n, shape.Features), tensor.WithBacking(float32s(m.Features))))))
			continue
		}
		v, err := nn.Glorot(tensor.Float32, nn.ParamSeed(f.Seed, uint64(i)), 1, n, shape.Features)
		if err != nil {
			return err
		}
		e := nn.Param(eg, nt+".embed", v)
		parts, embeds = append(parts, e), append(embeds, e)
	}
	x, err := gorgonia.Concat(0, parts...)
	if err != nil {
		return err
	}
	var opts []rgcn.Option
	if o.Bases > 0 {
		opts = append(opts, rgcn.WithBasis(o.Bases))
	}
	l1, err := rgcn.New(eg, shape.Features, f.Hidden, numRels, append(opts, rgcn.WithName("rgcn1"), rgcn.WithSeed(f.Seed),
		rgcn.WithActivation(nn.ReLU), rgcn.WithDropout(f.Dropout, mode))...)
	if err != nil {
		return err
	}
	l2, err := rgcn.New(eg, f.Hidden, shape.Classes, numRels, append(opts, rgcn.WithName("rgcn2"), rgcn.WithSeed(f.Seed+1))...)
	if err != nil {
		return err
	}
	hid, err := l1.Forward(rel, x)
	if err != nil {
		return err
	}
	logits, err := l2.Forward(rel, hid)
	if err != nil {
		return err
	}
	// Labels and splits in homogeneous IDs: papers are rows
	// NodeOffsets[paper] onwards.
	off := int32(hom.NodeOffsets[paper])
	labels := make([]int32, hom.Graph.NumSrc())
	copy(labels[off:], m.Labels)
	shift := func(ids []int32) []int32 {
		out := make([]int32, len(ids))
		for i, v := range ids {
			out[i] = v + off
		}
		return out
	}
	tr, va, te := shift(m.Train), shift(m.Val), shift(m.Test)
	loss, err := nn.CrossEntropy(logits, labels, tr)
	if err != nil {
		return err
	}
	return f.Finish(w, "R-GCN on a generated ogbn-mag-shaped graph", &train.Task{
		Logits: logits, Loss: loss, Mode: mode,
		Groups: []train.Group{{Params: append(append(embeds, l1.Learnables()...), l2.Learnables()...), WeightDecay: f.WeightDecay}},
		Labels: labels, Train: tr, Val: va, Test: te,
	})
}

func float32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
