// Command linkpred trains a link predictor: a graph encoder (-model gcn,
// sage or gat) turns every node into an embedding and a decoder (-decoder
// dot, mlp or distmult) scores node pairs from them, trained with binary
// cross-entropy against sampled non-edges (PyG's examples/link_pred.py,
// DGL's link prediction examples).
//
// Full-graph mode (the default) follows PyG's link_pred.py on a Planetoid
// graph: the edges are split 85/5/10 into training, validation and test
// edges (linkpred.SplitEdges, undirected: an edge and its reverse stay
// together), the encoder runs on the training edges (validation adds
// nothing, test adds the validation edges), every epoch draws fresh uniform
// negatives (as many as training edges), validation and test pairs are
// scored against as many fixed non-edges of the whole graph, and the test
// ROC-AUC reported is that of the epoch of best validation AUC, on the last
// line: "test auc: 0.9123".
//
// -minibatch trains on mini-batches of training edges (sampling.EdgeLoader,
// DGL's as_edge_prediction_sampler): every batch samples -neg negatives per
// positive, one block stack over all their endpoints (-fanouts) with the
// batch's edges and their reverses excluded from message passing, and scores
// the pairs on the blocks' outputs. After training it embeds every node by
// layer-wise inference and ranks each test edge against -eval-neg random
// destinations (ogbl-citation2's protocol), printing MRR and Hits@K.
//
// Without -data it trains on a generated planted-partition graph (-nodes,
// -degree, -features): its edges fall mostly within communities whose
// members share a feature direction, so links are predictable.
//
// -save writes the trained encoder as a model file (package model) with the
// dot decoder, or the encoder's and decoder's parameters (nn.SaveParams)
// with a learned one; -load reads either back.
package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/sampling"
)

// options are linkpred's flags, next to the shared ones.
type options struct {
	setup.Flags
	Model, Decoder     string
	Layers, Out, Heads int
	Val, Test          float64
	Minibatch          bool
	Fanouts            string
	Batch, Steps, Neg  int
	EvalNeg, EvalEdges int
	Chunk              int
	// The generated graph's shape (without -data).
	Nodes, Features int
	Degree          float64
}

func main() {
	// PyG's link_pred.py: GCNConv(in, 128), ReLU, GCNConv(128, 64), Adam at
	// 0.01, 100 epochs, no dropout.
	o := options{Flags: setup.Flags{Epochs: 100, LR: 0.01, Hidden: 128, Seed: 1},
		Model: "gcn", Decoder: "dot", Layers: 2, Out: 64, Heads: 8, Val: 0.05, Test: 0.1,
		Fanouts: "15,10", Batch: 1024, Neg: 1, EvalNeg: 1000, EvalEdges: 10000, Chunk: 16384,
		Nodes: 2708, Features: 128, Degree: 3.9}
	o.register(flag.CommandLine)
	setup.ParseAndRun("linkpred", &o.Flags, flag.CommandLine, func(w io.Writer) error { return run(w, &o) })
}

func (o *options) register(fs *flag.FlagSet) {
	o.Register(fs)
	o.RegisterSplit(fs)
	fs.StringVar(&o.Model, "model", o.Model, "encoder: gcn, sage or gat")
	fs.StringVar(&o.Decoder, "decoder", o.Decoder, "pair scorer: dot, mlp (on [h_u, h_v], one hidden layer of -out) or distmult")
	fs.IntVar(&o.Layers, "layers", o.Layers, "encoder layers (full-graph mode; -minibatch takes one per -fanouts entry)")
	fs.IntVar(&o.Out, "out", o.Out, "embedding width (the last layer's output)")
	fs.IntVar(&o.Heads, "heads", o.Heads, "attention heads of GAT's hidden layers (concatenated; -hidden is their total width)")
	fs.Float64Var(&o.Val, "val", o.Val, "fraction of the edges held out for validation")
	fs.Float64Var(&o.Test, "test", o.Test, "fraction of the edges held out for test")
	fs.BoolVar(&o.Minibatch, "minibatch", o.Minibatch, "train on sampled mini-batches of edges (sampling.EdgeLoader) and report MRR and Hits@K")
	fs.StringVar(&o.Fanouts, "fanouts", o.Fanouts, "-minibatch: neighbours sampled per layer, the input layer's first (-1: all)")
	fs.IntVar(&o.Batch, "batch", o.Batch, "-minibatch: training edges per batch")
	fs.IntVar(&o.Steps, "steps", o.Steps, "-minibatch: batches per epoch (0: all the training edges)")
	fs.IntVar(&o.Neg, "neg", o.Neg, "-minibatch: negatives per positive edge")
	fs.IntVar(&o.EvalNeg, "eval-neg", o.EvalNeg, "-minibatch: random destinations each test edge is ranked against")
	fs.IntVar(&o.EvalEdges, "eval-edges", o.EvalEdges, "-minibatch: test edges ranked (0: all)")
	fs.IntVar(&o.Chunk, "chunk", o.Chunk, "-minibatch: nodes per chunk of layer-wise inference")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "nodes of the generated graph (without -data)")
	fs.IntVar(&o.Features, "features", o.Features, "features of the generated graph (without -data)")
	fs.Float64Var(&o.Degree, "degree", o.Degree, "mean degree of the generated graph (without -data)")
}

// check rejects what linkpred cannot use, naming the flag, and returns the
// fan-outs of -minibatch.
func (o *options) check() ([]int, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if err := o.Refuse("link prediction does not use it", "patience", "select", "dense", "plot", "device"); err != nil {
		return nil, err
	}
	switch {
	case o.Model != "gcn" && o.Model != "sage" && o.Model != "gat":
		return nil, fmt.Errorf("-model %q: want gcn, sage or gat", o.Model)
	case o.Decoder != "dot" && o.Decoder != "mlp" && o.Decoder != "distmult":
		return nil, fmt.Errorf("-decoder %q: want dot, mlp or distmult", o.Decoder)
	case o.Layers < 1:
		return nil, fmt.Errorf("-layers %d: want at least 1", o.Layers)
	case o.Out <= 0:
		return nil, fmt.Errorf("-out %d: want a positive number of features", o.Out)
	case o.Heads <= 0:
		return nil, fmt.Errorf("-heads %d: want a positive number of heads", o.Heads)
	case o.Model == "gat" && o.Hidden%o.Heads != 0:
		return nil, fmt.Errorf("-hidden %d is not a multiple of -heads %d (GAT's hidden width is heads x per-head width)", o.Hidden, o.Heads)
	case !(o.Val >= 0 && o.Val < 1):
		return nil, fmt.Errorf("-val %v: want a fraction in [0, 1)", o.Val)
	case !(o.Test > 0 && o.Test < 1):
		return nil, fmt.Errorf("-test %v: want a fraction in (0, 1)", o.Test)
	case o.Val+o.Test >= 1:
		return nil, fmt.Errorf("-val %v and -test %v leave no training edges", o.Val, o.Test)
	case o.Batch <= 0:
		return nil, fmt.Errorf("-batch %d: want a positive number of edges", o.Batch)
	case o.Steps < 0:
		return nil, fmt.Errorf("-steps %d: want a number of batches >= 0 (0: all)", o.Steps)
	case o.Neg <= 0:
		return nil, fmt.Errorf("-neg %d: want a positive number of negatives", o.Neg)
	case o.EvalNeg <= 0:
		return nil, fmt.Errorf("-eval-neg %d: want a positive number of negatives", o.EvalNeg)
	case o.EvalEdges < 0:
		return nil, fmt.Errorf("-eval-edges %d: want a number >= 0 (0: all)", o.EvalEdges)
	case o.Chunk <= 0:
		return nil, fmt.Errorf("-chunk %d: want a positive number of nodes", o.Chunk)
	case o.Nodes < 2:
		return nil, fmt.Errorf("-nodes %d: want at least 2 nodes", o.Nodes)
	case o.Features <= 0:
		return nil, fmt.Errorf("-features %d: want a positive number", o.Features)
	case !(o.Degree > 0) || o.Degree > 1e6:
		return nil, fmt.Errorf("-degree %v: want a positive mean degree", o.Degree)
	}
	if o.Data != "" {
		if err := o.Refuse(setup.GeneratedOnly, "nodes", "features", "degree"); err != nil {
			return nil, err
		}
	}
	if !o.Minibatch {
		return nil, o.Refuse("training is full-graph without -minibatch", "fanouts", "batch", "steps", "neg", "eval-neg", "eval-edges", "chunk")
	}
	if o.Given("layers") {
		return nil, fmt.Errorf("-layers does not apply to -minibatch: it takes one layer per -fanouts entry")
	}
	fanouts, err := sampling.ParseFanouts(o.Fanouts)
	if err != nil {
		return nil, fmt.Errorf("-fanouts %w", err)
	}
	return fanouts, nil
}

// load returns -data's dataset (features row-normalised as PyG's
// NormalizeFeatures), or a generated planted-partition graph.
func (o *options) load() (*dataset.Dataset, error) {
	if o.Data != "" || o.Split != "" {
		return o.LoadData() // -split without -data: its error
	}
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features, cfg.MeanDegree, cfg.Seed = o.Nodes, o.Features, o.Degree, o.Seed
	cfg.Classes = max(1, min(cfg.Nodes/100, 1000))
	cfg.TrainPerClass, cfg.Val, cfg.Test = 1, 0, 0
	return dataset.PlantedPartition(cfg)
}

// widths returns the encoder's widths: the input, -hidden for every hidden
// layer, -out for the last.
func (o *options) widths(in, layers int) []int {
	w := []int{in}
	for range layers - 1 {
		w = append(w, o.Hidden)
	}
	return append(w, o.Out)
}

func run(w io.Writer, o *options) error {
	fanouts, err := o.check()
	if err != nil {
		return err
	}
	ds, err := o.load()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d nodes, %d edges, %d features\n", ds.Name, ds.Graph.NumNodes(), ds.Graph.NumEdges(), ds.Features.Cols)
	if o.Minibatch {
		return runMinibatch(w, o, ds, fanouts)
	}
	return runFull(w, o, ds)
}
