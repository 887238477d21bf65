// Command sage trains GraphSAGE (Hamilton et al., NeurIPS 2017; the mean
// aggregator) for node classification by mini-batches of sampled
// neighbours, as DGL's train_sampling example: every batch of training
// nodes samples a fan-out of neighbours per layer (-fanouts, the input
// layer's first), the model runs on the sampled blocks, and after training
// the whole graph is evaluated one layer at a time in chunks of nodes
// (layer-wise inference). With no -data it trains on a generated
// planted-partition graph of -nodes nodes (-classes, -features, -degree
// and -train-per-class shape it: an ogbn-products-sized run is in
// README.md); with -data on a Planetoid
// folder (Cora, CiteSeer, PubMed) or an OGB one. It prints one line per
// epoch with batches/s and the time per 1,000 training nodes, then (unless
// -infer=false) the accuracies of layer-wise inference, ending
// with "test accuracy: 0.xxxx" (a format,
// not a promised figure). -save writes the trained model as a model
// file (package model: the architecture and fan-outs too, so model.Load and
// cmd/gnnserve run it without this program); -load reads it back (or a
// parameter file of nn.SaveParams), to evaluate (-epochs 0) or to train on
// from there.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
)

// options are sage's own flags, next to the shared ones.
type options struct {
	setup.Flags
	Fanouts string
	Batch   int
	Nodes   int
	Chunk   int
	// The generated graph's shape (without -data).
	Classes, Features, TrainPerClass int
	Degree                           float64
	Infer                            bool
}

func main() {
	o := options{Flags: setup.Flags{Epochs: 20, LR: 0.003, Hidden: 256, Dropout: 0.5, WeightDecay: 5e-4, Seed: 1},
		Fanouts: "15,10,5", Batch: 64, Nodes: 5000, Chunk: 4096, Infer: true}
	o.register(flag.CommandLine)
	setup.ParseAndRun("sage", &o.Flags, flag.CommandLine, func(w io.Writer) error { return run(w, &o) })
}

func (o *options) register(fs *flag.FlagSet) {
	o.Register(fs)
	o.RegisterSplit(fs)
	fs.StringVar(&o.Fanouts, "fanouts", o.Fanouts, "neighbours sampled per layer, the input layer's first (-1: all); their number is the number of layers")
	fs.IntVar(&o.Batch, "batch", o.Batch, "training nodes per mini-batch")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "nodes of the generated planted-partition graph (without -data)")
	fs.IntVar(&o.Chunk, "chunk", o.Chunk, "nodes per chunk of layer-wise inference")
	fs.IntVar(&o.Classes, "classes", 0, "classes of the generated graph (0: the planted default, 7)")
	fs.IntVar(&o.Features, "features", 0, "features of the generated graph (0: the planted default, 128)")
	fs.Float64Var(&o.Degree, "degree", 0, "mean degree of the generated graph (0: the planted default, 3.9)")
	fs.IntVar(&o.TrainPerClass, "train-per-class", 0, "training nodes per class of the generated graph (0: the planted default, 20)")
	fs.BoolVar(&o.Infer, "infer", o.Infer, "evaluate by layer-wise inference after training (-infer=false: only train)")
}

// check rejects what sage cannot use, naming the flag, and returns the
// fan-outs.
func (o *options) check() ([]int, error) {
	if err := o.Refuse("sage trains on the CPU", "device"); err != nil {
		return nil, err
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	if err := o.Refuse("sage trains on mini-batches", "patience", "select", "dense", "plot", "cpuprofile"); err != nil {
		return nil, err
	}
	fanouts, err := sampling.ParseFanouts(o.Fanouts)
	if err != nil {
		return nil, fmt.Errorf("-fanouts %w", err)
	}
	switch {
	case o.Batch <= 0:
		return nil, fmt.Errorf("-batch %d: want a positive number of nodes", o.Batch)
	case o.Nodes <= 0:
		return nil, fmt.Errorf("-nodes %d: want a positive number of nodes", o.Nodes)
	case o.Chunk <= 0:
		return nil, fmt.Errorf("-chunk %d: want a positive number of nodes", o.Chunk)
	case o.Classes < 0:
		return nil, fmt.Errorf("-classes %d: want a positive number (0: default)", o.Classes)
	case o.Features < 0:
		return nil, fmt.Errorf("-features %d: want a positive number (0: default)", o.Features)
	case !(o.Degree >= 0) || math.IsInf(o.Degree, 0):
		return nil, fmt.Errorf("-degree %v: want a positive number (0: default)", o.Degree)
	case o.TrainPerClass < 0:
		return nil, fmt.Errorf("-train-per-class %d: want a positive number (0: default)", o.TrainPerClass)
	case !o.Infer && (o.Save == "" && o.Epochs == 0):
		return nil, fmt.Errorf("-infer=false with -epochs 0 and no -save does nothing")
	}
	if o.Data != "" {
		if err := o.Refuse(setup.GeneratedOnly, "nodes", "classes", "features", "degree", "train-per-class"); err != nil {
			return nil, err
		}
	}
	return fanouts, nil
}

// checkData refuses, before training, a dataset whose split -infer
// cannot evaluate (an empty one) and a model too large for memory: the
// layers' widths on the nodes a batch can reach.
func (o *options) checkData(ds *dataset.Dataset, fanouts []int) error {
	if o.Infer {
		for k, ids := range [][]int32{ds.Train, ds.Val, ds.Test} {
			if len(ids) == 0 {
				return fmt.Errorf("the dataset has no %s nodes, so -infer cannot report its accuracy (give -infer=false to train only)", [3]string{"training", "validation", "test"}[k])
			}
		}
	}
	reach := float64(o.Batch)
	for _, k := range fanouts {
		if k < 0 {
			reach = float64(ds.Graph.NumNodes())
		}
		reach = min(reach*float64(k+1), float64(ds.Graph.NumNodes()))
	}
	return setup.CheckModelSize("-hidden", int(reach), ds.Features.Cols, o.Hidden, 1, len(fanouts))
}

// load returns the dataset: -data's, or a planted-partition graph of
// -nodes nodes.
func (o *options) load() (*dataset.Dataset, error) {
	if o.Data != "" || o.Split != "" {
		return o.LoadData() // -split without -data: its error
	}
	cfg := dataset.DefaultPlantedConfig().Override(dataset.PlantedConfig{Nodes: o.Nodes, Classes: o.Classes,
		Features: o.Features, MeanDegree: o.Degree, TrainPerClass: o.TrainPerClass})
	cfg.Seed = o.Seed // 0 included
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		return nil, fmt.Errorf("-nodes, -features, -degree: %w", err)
	}
	return ds, nil
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
	if err := o.checkData(ds, fanouts); err != nil {
		return err
	}
	setup.Describe(w, ds)
	// Number the edges by destination: the sampler then reads no edge-ID
	// map (the blocks' EdgeIDs are the new IDs; sage uses no edge data).
	if ds.Graph, _, err = ds.Graph.ReorderEdges(graph.ByDst); err != nil {
		return err
	}
	// Dense features are used in place: a copy would keep a second table
	// (1 GB at the ogbn-products size) alive through training.
	backing := ds.Features.Dense
	if ds.Features.IsSparse() || backing == nil {
		backing = ds.Features.ToDense()
	}
	feats := tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(backing))
	widths := []int{ds.Features.Cols}
	for range len(fanouts) - 1 {
		widths = append(widths, o.Hidden)
	}
	m, err := model.New(Spec(append(widths, ds.NumClasses), o.Dropout, fanouts), tensor.Float32, o.Seed)
	if err != nil {
		return err
	}
	mode := m.Mode()
	s, err := train.NewShared(o.LR, o.WeightDecay)
	if err != nil {
		return err
	}
	sampler, err := sampling.NewMultiLayer(ds.Graph, fanouts, sampling.Options{})
	if err != nil {
		return err
	}
	if err := bindAll(m, s, sampler, ds, feats); err != nil {
		return err
	}
	if o.Load != "" {
		if _, err := setup.LoadModel(o.Load, m, s.Nodes(), nil); err != nil {
			return fmt.Errorf("-load: %w", err)
		}
	}
	if o.Epochs > 0 {
		loader, err := sampling.NewLoader(sampler, ds.Train, sampling.LoaderOptions{BatchSize: o.Batch, Shuffle: true, Seed: o.Seed})
		if err != nil {
			return err
		}
		_, err = train.FitBatches(m, s, loader, feats, ds.Labels, o.Epochs, mode, func(e train.BatchEpoch) {
			fmt.Fprintf(w, "epoch %3d  loss %.4f  train acc %.4f  %d batches  %.2f batches/s  %.0f ms per 1000 seeds  rebuild %.0f%%  sampling wait %.0f%%\n",
				e.Epoch, e.Loss, e.TrainAcc, e.Batches, float64(e.Batches)/e.Time.Seconds(), 1e6*e.Time.Seconds()/float64(len(ds.Train)),
				100*e.Build.Seconds()/e.Time.Seconds(), 100*e.Sample.Seconds()/e.Time.Seconds())
		})
		if err != nil {
			return err
		}
	}
	if !o.Infer {
		return save(w, o, m, s)
	}
	logits, err := train.Inference(m, s, ds.Graph, feats, o.Chunk, mode)
	if err != nil {
		return err
	}
	for _, split := range []struct {
		name  string
		nodes []int32
	}{{"train", ds.Train}, {"val", ds.Val}, {"test", ds.Test}} {
		acc, err := nn.Accuracy(logits, ds.Labels, split.nodes)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s accuracy: %.4f\n", split.name, acc)
	}
	return save(w, o, m, s)
}

// save writes the model with the trained parameters (s's) to -save, if
// given, as a model file.
func save(w io.Writer, o *options, m *model.Model, s *train.Shared) error {
	if o.Save != "" {
		if err := setup.SaveModel(o.Save, m, s.Nodes()); err != nil {
			return fmt.Errorf("-save: %w", err)
		}
		fmt.Fprintf(w, "saved parameters to %s (a model file, with the architecture)\n", o.Save)
	}
	return nil
}

// Spec is DGL's GraphSAGE of its mini-batch example: a SAGEConv (mean
// aggregator) from widths[l] to widths[l+1] per layer, ReLU between the
// layers, feature dropout on the input of every layer but the first, and
// the fan-outs it trains with. Layer l is named sage<l+1> and seeded as
// sage.Stack seeds it (from its name), so that runs are those of the
// program before it built its model from a spec.
func Spec(widths []int, dropout float64, fanouts []int) model.Spec {
	var layers []model.LayerSpec
	for l := range len(widths) - 1 {
		name := fmt.Sprintf("sage%d", l+1)
		seed := nn.SeedOf(name)
		ls := model.LayerSpec{Type: model.SAGEConv, Name: name, In: widths[l], Out: widths[l+1], Seed: &seed}
		if l < len(widths)-2 {
			ls.Activation = "relu"
		}
		if l > 0 {
			ls.Dropout = dropout
		}
		layers = append(layers, ls)
	}
	return model.Spec{Task: "node", InFeatures: widths[0], Classes: widths[len(widths)-1], Layers: layers, Fanouts: fanouts}
}

// bindAll builds the model once on a one-node batch so that s holds every
// parameter (for -load) before training.
func bindAll(m train.Stack, s *train.Shared, sampler *sampling.MultiLayer, ds *dataset.Dataset, feats *tensor.Dense) error {
	if len(ds.Train) == 0 {
		return fmt.Errorf("the dataset has no training nodes")
	}
	mb, err := sampler.Sample(ds.Train[:1], 0)
	if err != nil {
		return err
	}
	_, err = train.BuildBatch(m, s, mb, feats)
	return err
}
