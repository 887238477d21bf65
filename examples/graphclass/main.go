// Command graphclass trains a graph isomorphism network (GIN; Xu, Hu,
// Leskovec and Jegelka, "How Powerful are Graph Neural Networks?", ICLR
// 2019) for graph classification on gnn's fused ops. With no -data it
// trains on MiniGC, generated graphs whose class is their structure
// (cycle, star, wheel, lollipop, hypercube, grid, clique, circular ladder);
// with -data DIR -name NAME it trains on the TU dataset NAME in DIR (the
// files DIR/NAME_A.txt, NAME_graph_indicator.txt, ...), split at random
// into 80% training, 10% validation and 10% test graphs.
//
// The model is the paper's: -layers 5 counts the input, so 4 GIN layers,
// each a two-layer MLP with batch norm and ReLU; every layer's node features, the input's
// too, are pooled per graph (-readout sum, the paper's, or mean, max or
// attention) and mapped to class scores by a linear layer with dropout, and
// the scores are summed. All graphs are batched into one graph.Batched and
// trained full-batch, the loss over the training graphs. -input picks the
// node input features: the one-hot node labels (PyG's default, and ours
// when the dataset has them), the node attributes standardised per column,
// or both; a line says which and how wide. It prints one line per epoch
// and ends with "test accuracy: 0.xxxx" (a format, not a promised figure),
// the test accuracy at the epoch of best validation accuracy. -save writes
// the model as a model file (package model: architecture, readout and
// parameters, so model.Load and PredictGraphs run it without this program,
// and -load refuses it for another -readout); -load reads it back, or a
// parameter file this program wrote before model files.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// options are the shared flags and the graph-classification ones.
type options struct {
	setup.Flags
	Name    string // TU dataset name, with Data
	Layers  int    // GIN layers, the input counted
	Readout string // sum, mean, max or attention
	Graphs  int    // generated graphs
	Input   string // labels, attributes or both; "": labels if any, else attributes
}

func main() {
	o := options{
		Flags:   setup.Flags{Epochs: 150, LR: 0.01, Hidden: 32, Dropout: 0.5, Seed: 1},
		Layers:  5,
		Readout: "sum",
		Graphs:  dataset.DefaultMiniGCConfig().Graphs,
	}
	o.Register(flag.CommandLine)
	flag.CommandLine.Lookup("data").Usage = "`dir` of a TU dataset (with -name); empty trains on generated MiniGC graphs"
	flag.StringVar(&o.Name, "name", o.Name, "TU dataset `name`: the files are DIR/NAME_A.txt, DIR/NAME_graph_indicator.txt, ...")
	flag.IntVar(&o.Layers, "layers", o.Layers, "layers, the input layer counted (GIN layers + 1)")
	flag.StringVar(&o.Readout, "readout", o.Readout, "graph readout: sum, mean, max or attention")
	flag.IntVar(&o.Graphs, "graphs", o.Graphs, "number of generated graphs (without -data)")
	flag.StringVar(&o.Input, "input", o.Input, "node input features: labels (one-hot node labels, PyG's default), attributes (node attributes, standardised per column) or both; default labels when the dataset has them, else attributes")
	flag.CommandLine.Lookup("seed").Usage = "random seed (initialisation, dropout, the generated graphs, and the random train/val/test split of the graphs)"
	setup.Main("graphclass", func() error {
		if err := o.Parse(flag.CommandLine, os.Args[1:]); err != nil {
			return err
		}
		return run(os.Stdout, &o)
	})
}

// load returns the TU dataset, split, or the generated one.
func load(o *options) (*dataset.GraphDataset, error) {
	if o.Data == "" {
		if o.Name != "" {
			return nil, fmt.Errorf("-name %s needs -data", o.Name)
		}
		cfg := dataset.DefaultMiniGCConfig()
		cfg.Graphs, cfg.Seed = o.Graphs, o.Seed
		cfg.Val, cfg.Test = o.Graphs/5, o.Graphs/5
		return dataset.MiniGC(cfg)
	}
	if o.Name == "" {
		return nil, fmt.Errorf("-data needs -name, the prefix of the TU files")
	}
	ds, err := dataset.LoadTU(o.Data, o.Name)
	if err != nil {
		return nil, tuHint(err, o.Data, o.Name)
	}
	n := len(ds.Graphs)
	if err := ds.SplitRandom(n/10, n/10, o.Seed); err != nil {
		return nil, err
	}
	return ds, nil
}

func run(w io.Writer, o *options) error {
	task, m, title, err := build(w, o)
	if err != nil {
		return err
	}
	o.LegacyParams = legacyParams(m)
	return o.FinishModel(w, title, task, m)
}

// build checks the options, loads or generates the graphs and builds the
// model on them, writing the dataset and input lines to w.
func build(w io.Writer, o *options) (task *train.Task, m *model.Model, title string, err error) {
	if err := o.Refuse("graphclass trains on the CPU, on dense node features", "device", "dense"); err != nil {
		return nil, nil, "", err
	}
	if err := o.Check(); err != nil {
		return nil, nil, "", err
	}
	if o.Layers < 2 {
		return nil, nil, "", fmt.Errorf("-layers %d: want at least 2 (the input and one GIN layer)", o.Layers)
	}
	if err := limits.Count("-layers", int64(o.Layers)); err != nil {
		return nil, nil, "", err
	}
	if err := checkReadout(o); err != nil {
		return nil, nil, "", err
	}
	switch o.Input {
	case "", inputLabels, inputAttrs, inputBoth:
	default:
		return nil, nil, "", fmt.Errorf("-input %q: want labels, attributes or both", o.Input)
	}
	if o.Data == "" {
		if o.Graphs < 1 {
			return nil, nil, "", fmt.Errorf("-graphs %d: want at least 1 graph", o.Graphs)
		}
		if err := limits.Count("-graphs", int64(o.Graphs)); err != nil {
			return nil, nil, "", err
		}
		nodes := float64(o.Graphs) * float64(dataset.DefaultMiniGCConfig().MaxNodes)
		if nodes > limits.MaxCount {
			return nil, nil, "", fmt.Errorf("-graphs %d: up to %.0f nodes in all, more than %d", o.Graphs, nodes, limits.MaxCount)
		}
		if err := setup.CheckModelSize("-graphs, -layers and -hidden", int(nodes), o.Hidden, o.Hidden, 1, o.Layers); err != nil {
			return nil, nil, "", err
		}
	}
	ds, err := load(o)
	if err != nil {
		return nil, nil, "", err
	}
	useLabels, useAttrs, err := inputParts(o.Input, ds)
	if err != nil {
		return nil, nil, "", err
	}
	b, err := graph.Batch(ds.Graphs)
	if err != nil {
		return nil, nil, "", err
	}
	if err := setup.CheckModelSize("-layers and -hidden", b.NumSrc(), o.Hidden, o.Hidden, 1, o.Layers); err != nil {
		return nil, nil, "", err
	}
	fmt.Fprintf(w, "dataset %s: %d graphs, %d nodes, %d edges, %d classes, train/val/test %d/%d/%d\n",
		ds.Name, b.NumGraphs(), b.NumSrc(), b.NumEdges(), ds.NumClasses, len(ds.Train), len(ds.Val), len(ds.Test))

	switch o.Readout {
	case "sum", "mean", "max", "attention":
	default:
		return nil, nil, "", fmt.Errorf("-readout %q: want sum, mean, max or attention", o.Readout)
	}
	eg := gorgonia.NewGraph()
	x, desc := input(eg, ds, useLabels, useAttrs)
	fmt.Fprintf(w, "input: %d features a node: %s\n", x.Shape()[1], desc)
	m, err = model.New(Spec(x.Shape()[1], o.Hidden, ds.NumClasses, o.Layers, o.Readout, o.Dropout, o.Seed), tensor.Float32, o.Seed)
	if err != nil {
		return nil, nil, "", err
	}
	logits, params, err := m.ForwardGraphs(eg, b, x)
	if err != nil {
		return nil, nil, "", err
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		return nil, nil, "", err
	}
	return &train.Task{
		Logits: logits, Loss: loss, Mode: m.Mode(),
		Groups: []train.Group{{Params: params, WeightDecay: o.WeightDecay}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}, m, "GIN on " + ds.Name, nil
}

// Spec is the model of the GIN paper and DGL's example: layers-1 GINConv
// layers (GIN-0, sum), each with the MLP linear, batch norm, ReLU, linear,
// batch norm, then ReLU; the input and every layer's node features pooled
// per graph (readout), each mapped to class scores by a linear layer of
// its own with dropout on the scores, and the scores summed. The linear
// layers draw the seeds the program drew before it built its model from a
// spec (parameter k of the model seeded nn.ParamSeed(seed, k)), and the
// score dropouts are seeded seed+1000+level, so its runs are unchanged.
func Spec(in, hidden, classes, layers int, readout string, dropout float64, seed uint64) model.Spec {
	k := uint64(0) // parameters drawn so far
	linear := func(name string, in, out int) model.LayerSpec {
		s := nn.ParamSeed(seed, k)
		k += 2
		return model.LayerSpec{Type: model.Linear, Name: name, In: in, Out: out, Seed: &s}
	}
	batchNorm := func(name string, f int, act string) model.LayerSpec {
		k += 2
		return model.LayerSpec{Type: model.BatchNorm, Name: name, In: f, Activation: act}
	}
	var convs []model.LayerSpec
	var levels []model.ReadoutLevel
	width := in
	for l := range layers {
		if l > 0 {
			name := fmt.Sprintf("gin%d", l)
			mlp := []model.LayerSpec{linear(name+".mlp1", width, hidden), batchNorm(name+".mlp.bn", hidden, "relu"),
				linear(name+".mlp2", hidden, hidden), batchNorm(name+".bn", hidden, "")}
			convs = append(convs, model.LayerSpec{Type: model.GINConv, Name: name, In: width, Out: hidden, Activation: "relu", MLP: mlp})
			width = hidden
		}
		var lv model.ReadoutLevel
		if readout == "attention" {
			lv.Gate = []model.LayerSpec{linear(fmt.Sprintf("gate%d", l), width, 1)}
		}
		pred := linear(fmt.Sprintf("pred%d", l), width, classes)
		if dropout > 0 {
			s := seed + uint64(1000+l)
			pred.OutDropout, pred.OutDropoutSeed = dropout, &s
		}
		lv.Head = []model.LayerSpec{pred}
		levels = append(levels, lv)
	}
	return model.Spec{Task: "graph", InFeatures: in, Classes: classes, Layers: convs,
		Readout: &model.ReadoutSpec{Type: readout, Levels: levels}}
}

// legacyParams returns m's parameters under the names the program gave
// them before it built its model from a spec ("pred0.w" for "pred0.weight"),
// holding m's tensors: its parameter files load into them.
func legacyParams(m *model.Model) gorgonia.Nodes {
	eg := gorgonia.NewGraph()
	vals := m.Params()
	var ns gorgonia.Nodes
	for _, name := range m.ParamNames() {
		old := strings.TrimSuffix(strings.TrimSuffix(name, "eight"), "ias")
		ns = append(ns, gorgonia.NodeFromAny(eg, vals[name], gorgonia.WithName(old)))
	}
	return ns
}

// checkReadout refuses an unknown -readout, and -load of a model file
// trained with another readout (sum, mean and max have the same
// parameters, so only the file's architecture tells them apart), before
// any graph is loaded or generated. A parameter file written before model
// files records no readout and is loaded as before.
func checkReadout(o *options) error {
	switch o.Readout {
	case "sum", "mean", "max", "attention":
	default:
		return fmt.Errorf("-readout %q: want sum, mean, max or attention", o.Readout)
	}
	if o.Load == "" {
		return nil
	}
	isModel, err := model.IsModelFile(o.Load)
	if err != nil {
		return fmt.Errorf("-load: %w", err)
	}
	if !isModel {
		return nil
	}
	m, err := model.Load(o.Load)
	if err != nil {
		return fmt.Errorf("-load: %w", err)
	}
	if r := m.Spec().Readout; r != nil && r.Type != o.Readout {
		return fmt.Errorf("-load %s: trained with -readout %s, not %s: give -readout %s", o.Load, r.Type, o.Readout, r.Type)
	}
	return nil
}

// tuHint adds to LoadTU's error for dir a hint where the TU files are
// when dir is laid out as PyG's TUDataset keeps them (root/NAME/raw/ or
// NAME/raw/).
func tuHint(err error, dir, name string) error {
	for _, raw := range []string{filepath.Join(dir, "raw"), filepath.Join(dir, name, "raw")} {
		if _, serr := os.Stat(filepath.Join(raw, name+"_A.txt")); serr == nil {
			return fmt.Errorf("%w (the TU files are in %s, as PyG keeps them: give -data %s)", err, raw, raw)
		}
	}
	return err
}

// Input feature choices of -input.
const (
	inputLabels = "labels"     // one-hot node labels (PyG's TUDataset default)
	inputAttrs  = "attributes" // node attributes, standardised per column
	inputBoth   = "both"       // one-hot node labels, then standardised attributes
)

// inputParts returns which of the node labels and attributes -input kind
// feeds on ds: "" picks labels when ds has them, else attributes. A kind
// that asks for what ds lacks is an error naming -input.
func inputParts(kind string, ds *dataset.GraphDataset) (labels, attrs bool, err error) {
	hasL, hasA := ds.NodeLabels != nil, ds.Features != nil
	switch kind {
	case "":
		return hasL, !hasL && hasA, nil
	case inputLabels:
		labels = true
	case inputAttrs:
		attrs = true
	case inputBoth:
		labels, attrs = true, true
	default:
		return false, false, fmt.Errorf("-input %q: want labels, attributes or both", kind)
	}
	if labels && !hasL || attrs && !hasA {
		return false, false, fmt.Errorf("-input %s: dataset %s has %s", kind, ds.Name, describeHas(hasL, hasA))
	}
	return labels, attrs, nil
}

func describeHas(labels, attrs bool) string {
	switch {
	case labels && attrs:
		return "node labels and attributes"
	case labels:
		return "node labels but no node attributes"
	case attrs:
		return "node attributes but no node labels"
	}
	return "neither node labels nor node attributes (the input is a column of ones)"
}

// input returns the node features -input chooses, and a description of
// them: the one-hot node labels, the node attributes standardised per
// column (zero mean, unit variance over all nodes; a constant column
// becomes zero), both in that order, or a column of ones when the dataset
// has neither.
func input(eg *gorgonia.ExprGraph, ds *dataset.GraphDataset, labels, attrs bool) (*gorgonia.Node, string) {
	n := ds.NumNodes()
	cols, desc := 0, ""
	if labels {
		cols += ds.NumNodeLabels
		desc = fmt.Sprintf("%d one-hot node labels", ds.NumNodeLabels)
	}
	var a []float32
	ac := 0
	if attrs {
		ac = ds.Features.Cols
		a = standardise(ds.Features.ToDense(), n, ac)
		if desc != "" {
			desc += " + "
		}
		desc += fmt.Sprintf("%d standardised node attributes", ac)
		cols += ac
	}
	if cols == 0 {
		cols, desc = 1, "a column of ones (no node labels or attributes)"
	}
	v := make([]float32, n*cols)
	for i := range n {
		row := v[i*cols : (i+1)*cols]
		switch {
		case !labels && !attrs:
			row[0] = 1
			continue
		case labels:
			row[ds.NodeLabels[i]] = 1
		}
		if attrs {
			copy(row[cols-ac:], a[i*ac:(i+1)*ac])
		}
	}
	t := tensor.New(tensor.WithShape(n, cols), tensor.WithBacking(v))
	return gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, cols), gorgonia.WithName("features"), gorgonia.WithValue(t)), desc
}

// standardise returns the n x c matrix x with each column shifted to mean
// 0 and scaled to variance 1 (sums in float64; a constant column becomes
// 0).
func standardise(x []float32, n, c int) []float32 {
	out := make([]float32, len(x))
	for j := range c {
		var sum, sq float64
		for i := range n {
			v := float64(x[i*c+j])
			sum += v
			sq += v * v
		}
		mean := sum / float64(max(n, 1))
		sd := math.Sqrt(max(sq/float64(max(n, 1))-mean*mean, 0))
		for i := range n {
			if sd > 0 {
				out[i*c+j] = float32((float64(x[i*c+j]) - mean) / sd)
			}
		}
	}
	return out
}
