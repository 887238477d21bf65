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
// trained full-batch, the loss over the training graphs. It prints one line
// per epoch and ends with "test accuracy: 0.9850", the test accuracy at the
// epoch of best validation accuracy. -save writes the model as a model file
// (package model: architecture and parameters, so model.Load and
// PredictGraphs run it without this program); -load reads it back, or a
// parameter file this program wrote before model files.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/graph"
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
		return nil, err
	}
	n := len(ds.Graphs)
	if err := ds.SplitRandom(n/10, n/10, o.Seed); err != nil {
		return nil, err
	}
	return ds, nil
}

func run(w io.Writer, o *options) error {
	if err := o.Check(); err != nil {
		return err
	}
	if o.Layers < 2 {
		return fmt.Errorf("-layers %d: want at least 2 (the input and one GIN layer)", o.Layers)
	}
	ds, err := load(o)
	if err != nil {
		return err
	}
	b, err := graph.Batch(ds.Graphs)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "dataset %s: %d graphs, %d nodes, %d edges, %d classes, train/val/test %d/%d/%d\n",
		ds.Name, b.NumGraphs(), b.NumSrc(), b.NumEdges(), ds.NumClasses, len(ds.Train), len(ds.Val), len(ds.Test))

	switch o.Readout {
	case "sum", "mean", "max", "attention":
	default:
		return fmt.Errorf("-readout %q: want sum, mean, max or attention", o.Readout)
	}
	eg := gorgonia.NewGraph()
	x := input(eg, ds)
	m, err := model.New(Spec(x.Shape()[1], o.Hidden, ds.NumClasses, o.Layers, o.Readout, o.Dropout, o.Seed), tensor.Float32, o.Seed)
	if err != nil {
		return err
	}
	logits, params, err := m.ForwardGraphs(eg, b, x)
	if err != nil {
		return err
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		return err
	}
	o.LegacyParams = legacyParams(m)
	return o.FinishModel(w, "GIN on "+ds.Name, &train.Task{
		Logits: logits, Loss: loss, Mode: m.Mode(),
		Groups: []train.Group{{Params: params, WeightDecay: o.WeightDecay}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}, m)
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

// input returns the node features: the one-hot node labels followed by the
// node attributes, or a column of ones when the dataset has neither.
func input(eg *gorgonia.ExprGraph, ds *dataset.GraphDataset) *gorgonia.Node {
	n := ds.NumNodes()
	cols := ds.NumNodeLabels
	if ds.Features != nil {
		cols += ds.Features.Cols
	}
	if cols == 0 {
		cols = 1
	}
	v := make([]float32, n*cols)
	switch {
	case ds.NodeLabels == nil && ds.Features == nil:
		for i := range v {
			v[i] = 1
		}
	default:
		var attrs []float32
		if ds.Features != nil {
			attrs = ds.Features.ToDense()
		}
		for i := range n {
			row := v[i*cols : (i+1)*cols]
			if ds.NodeLabels != nil {
				row[ds.NodeLabels[i]] = 1
			}
			if attrs != nil {
				c := ds.Features.Cols
				copy(row[ds.NumNodeLabels:], attrs[i*c:(i+1)*c])
			}
		}
	}
	t := tensor.New(tensor.WithShape(n, cols), tensor.WithBacking(v))
	return gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, cols), gorgonia.WithName("features"), gorgonia.WithValue(t))
}
