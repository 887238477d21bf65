package main

import (
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
	"github.com/gnngo/gnn/serve"
)

// options are gnnserve's flags.
type options struct {
	// Data: a directory, or a generated graph.
	Data                     string
	Nodes, Features, Classes int
	Degree                   float64
	Seed                     uint64

	// Model: a model file, or an architecture and a parameter file.
	Model, Arch, Aggregator, Params string
	Layers, Hidden                  int
	RandomWeights                   bool

	// Serving.
	Addr                                   string
	Fanouts                                string
	Cache                                  bool
	Chunk                                  int
	Window, Timeout, ShutdownTimeout       time.Duration
	MaxBatch, MaxNodes, MaxNewNodes, Queue int
	MaxInputs                              int
	MaxBody                                int64
	SampleSeed                             uint64

	// Batch inference.
	Once bool
	IDs  string
	Out  string

	// Load client.
	Bench                                   string
	BenchRequests, BenchClients, BenchNodes int
	BenchEndpoint                           string
	BenchDuration                           time.Duration

	set map[string]bool
}

// defaults returns the options' defaults.
func defaults() options {
	return options{Nodes: 2708, Seed: 1, Arch: "sage", Aggregator: "mean", Layers: 2, Hidden: 256,
		Addr: "127.0.0.1:8080", Fanouts: "model", Chunk: 4096, Timeout: 30 * time.Second, ShutdownTimeout: 30 * time.Second,
		MaxBatch: 256, MaxNodes: 10000, MaxNewNodes: 1000, MaxInputs: 1_000_000, Queue: 4096, MaxBody: 8 << 20,
		BenchRequests: 1000, BenchClients: 50, BenchNodes: 1, BenchEndpoint: "predict"}
}

func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.Data, "data", o.Data, "Planetoid or OGB `dir` (e.g. ../shared/data/planetoid/cora); empty: a generated planted-partition graph")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "nodes of the generated graph (without -data)")
	fs.Float64Var(&o.Degree, "degree", o.Degree, "mean degree of the generated graph (0: the planted default, 3.9)")
	fs.IntVar(&o.Features, "features", o.Features, "features of the generated graph (0: the planted default, 128)")
	fs.IntVar(&o.Classes, "classes", o.Classes, "classes of the generated graph (0: the planted default, 7)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the generated graph")

	fs.StringVar(&o.Model, "model", o.Model, "model `file` written by an example's -save (package model)")
	fs.StringVar(&o.Arch, "arch", o.Arch, "without -model: the architecture of -params (sage)")
	fs.StringVar(&o.Aggregator, "aggregator", o.Aggregator, "-arch sage: mean, gcn or pool")
	fs.IntVar(&o.Layers, "layers", o.Layers, "-arch: number of layers")
	fs.IntVar(&o.Hidden, "hidden", o.Hidden, "-arch: hidden features")
	fs.StringVar(&o.Params, "params", o.Params, "-arch: parameter `file` without an architecture (nn.SaveParams, as examples/sage -save wrote before model files; names sage1.*, sage2.*, ...)")
	fs.BoolVar(&o.RandomWeights, "random-weights", o.RandomWeights, "-arch without -params: random weights, for load tests only")

	fs.StringVar(&o.Addr, "addr", o.Addr, "listen `host:port`")
	fs.StringVar(&o.Fanouts, "fanouts", o.Fanouts, "neighbourhoods: model (the model's fan-outs), full (every neighbour) or a list such as 15,10,5 (input layer first, -1: all)")
	fs.BoolVar(&o.Cache, "cache", o.Cache, "precompute the whole graph's outputs (layer-wise inference) and answer graph nodes from them; POST /v1/refresh recomputes")
	fs.IntVar(&o.Chunk, "chunk", o.Chunk, "nodes per chunk of the cache's layer-wise inference")
	fs.DurationVar(&o.Window, "batch-window", o.Window, "how long the batcher waits for more requests after the first (0: only those already waiting)")
	fs.IntVar(&o.MaxBatch, "max-batch", o.MaxBatch, "most nodes per batched forward pass")
	fs.IntVar(&o.MaxNodes, "max-nodes", o.MaxNodes, "most nodes (listed and new) per request")
	fs.IntVar(&o.MaxNewNodes, "max-new-nodes", o.MaxNewNodes, "most new nodes per request")
	fs.IntVar(&o.MaxInputs, "max-inputs", o.MaxInputs, "most nodes a request's neighbourhood may reach (400 beyond)")
	fs.Int64Var(&o.MaxBody, "max-body", o.MaxBody, "most bytes of a request body (413 beyond)")
	fs.IntVar(&o.Queue, "queue", o.Queue, "most requests waiting for the batcher (503 beyond)")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "most time a request may take (503 beyond)")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "on SIGTERM/SIGINT, most time given to the requests in flight")
	fs.Uint64Var(&o.SampleSeed, "sample-seed", o.SampleSeed, "sampling seed of requests that give none")

	fs.BoolVar(&o.Once, "once", o.Once, "write predictions as CSV (node,class,p0,p1,...) and exit, without listening")
	fs.StringVar(&o.IDs, "ids", o.IDs, "-once: the nodes, comma-separated or @file (one per line); empty: all")
	fs.StringVar(&o.Out, "out", o.Out, "-once: the CSV `file` (empty: standard output)")

	fs.StringVar(&o.Bench, "bench", o.Bench, "run a load client against the server at this `url` (e.g. http://127.0.0.1:8080) instead of serving")
	fs.IntVar(&o.BenchRequests, "bench-requests", o.BenchRequests, "-bench: requests in all")
	fs.IntVar(&o.BenchClients, "bench-clients", o.BenchClients, "-bench: concurrent clients")
	fs.IntVar(&o.BenchNodes, "bench-nodes", o.BenchNodes, "-bench: random nodes per request")
	fs.StringVar(&o.BenchEndpoint, "bench-endpoint", o.BenchEndpoint, "-bench: predict or embed")
	fs.DurationVar(&o.BenchDuration, "bench-duration", o.BenchDuration, "-bench: stop after this long even if requests remain (0: no limit)")
}

// parse parses args and records the flags given.
func (o *options) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	return nil
}

// check rejects what no run can use, naming the flag.
func (o *options) check() error {
	if o.Bench != "" {
		switch {
		case o.BenchRequests < 1:
			return fmt.Errorf("-bench-requests %d: want at least 1", o.BenchRequests)
		case o.BenchClients < 1:
			return fmt.Errorf("-bench-clients %d: want at least 1", o.BenchClients)
		case o.BenchNodes < 1:
			return fmt.Errorf("-bench-nodes %d: want at least 1", o.BenchNodes)
		case o.BenchEndpoint != "predict" && o.BenchEndpoint != "embed":
			return fmt.Errorf("-bench-endpoint %q: want predict or embed", o.BenchEndpoint)
		}
		return nil
	}
	switch {
	case o.Nodes < 1:
		return fmt.Errorf("-nodes %d: want at least 1", o.Nodes)
	case o.Features < 0 || o.Classes < 0:
		return fmt.Errorf("-features and -classes: want positive numbers (0: default)")
	case !(o.Degree >= 0) || math.IsInf(o.Degree, 0):
		return fmt.Errorf("-degree %v: want a finite number >= 0", o.Degree)
	case o.Model != "" && (o.given("arch") || o.given("params") || o.given("layers") || o.given("hidden") || o.given("aggregator") || o.RandomWeights):
		return fmt.Errorf("-model describes the model: -arch, -params, -layers, -hidden, -aggregator and -random-weights do not apply")
	case o.Model == "" && o.Arch != "sage":
		return fmt.Errorf("-arch %q: want sage (other models come as -model files)", o.Arch)
	case o.Model == "" && o.Params == "" && !o.RandomWeights:
		return fmt.Errorf("no model: give -model FILE, or -arch with -params FILE (or -random-weights for a load test)")
	case o.Params != "" && o.RandomWeights:
		return fmt.Errorf("-params and -random-weights exclude each other")
	case o.Layers < 1 || o.Hidden < 1:
		return fmt.Errorf("-layers %d, -hidden %d: want positive numbers", o.Layers, o.Hidden)
	case o.Chunk < 1:
		return fmt.Errorf("-chunk %d: want at least 1", o.Chunk)
	case o.Window < 0:
		return fmt.Errorf("-batch-window %v: want >= 0", o.Window)
	case o.Timeout <= 0 || o.ShutdownTimeout <= 0:
		return fmt.Errorf("-timeout and -shutdown-timeout: want positive durations")
	case o.MaxBatch < 1 || o.MaxNodes < 1 || o.MaxNewNodes < 1 || o.Queue < 1 || o.MaxBody < 1 || o.MaxInputs < 1:
		return fmt.Errorf("-max-batch, -max-nodes, -max-new-nodes, -max-inputs, -queue and -max-body: want positive numbers")
	case !o.Once && (o.IDs != "" || o.Out != ""):
		return fmt.Errorf("-ids and -out apply to -once")
	}
	if o.Data != "" {
		for _, name := range []string{"nodes", "degree", "features", "classes"} {
			if o.given(name) {
				return fmt.Errorf("-%s shapes the generated graph and does not apply to -data", name)
			}
		}
	}
	if _, err := o.aggregator(); err != nil {
		return err
	}
	_, err := o.fanouts()
	return err
}

// given reports whether the flag name was on the command line.
func (o *options) given(name string) bool { return o.set[name] }

// fanouts returns -fanouts as Config.Fanouts: nil for the model's, empty
// for every neighbour, or the list.
func (o *options) fanouts() ([]int, error) {
	switch o.Fanouts {
	case "model":
		return nil, nil
	case "full":
		return []int{}, nil
	}
	fs, err := sampling.ParseFanouts(o.Fanouts)
	if err != nil {
		return nil, fmt.Errorf("-fanouts %q: want model, full, or comma-separated numbers, each -1 (all) or at least 0", o.Fanouts)
	}
	return fs, nil
}

// aggregator returns -aggregator.
func (o *options) aggregator() (sage.Aggregator, error) {
	for _, a := range []sage.Aggregator{sage.Mean, sage.GCN, sage.Pool} {
		if a.String() == o.Aggregator {
			return a, nil
		}
	}
	return 0, fmt.Errorf("-aggregator %q: want mean, gcn or pool", o.Aggregator)
}

// config returns the server's configuration.
func (o *options) config() (serve.Config, error) {
	fanouts, err := o.fanouts()
	if err != nil {
		return serve.Config{}, err
	}
	return serve.Config{Window: o.Window, MaxBatch: o.MaxBatch, MaxNodes: o.MaxNodes, MaxNewNodes: o.MaxNewNodes,
		MaxInputs: o.MaxInputs, MaxBodyBytes: o.MaxBody, Timeout: o.Timeout, Queue: o.Queue, Cache: o.Cache, Chunk: o.Chunk,
		Fanouts: fanouts, Seed: o.SampleSeed}, nil
}

// data loads -data, or generates the planted-partition graph; it returns
// the number of classes too.
func (o *options) data() (*serve.Data, int, error) {
	var ds *dataset.Dataset
	var err error
	if o.Data != "" {
		ds, err = serve.LoadDataset(o.Data)
	} else {
		cfg := dataset.DefaultPlantedConfig().Override(dataset.PlantedConfig{Nodes: o.Nodes, Features: o.Features,
			Classes: o.Classes, MeanDegree: o.Degree})
		cfg.Seed = o.Seed // 0 included
		ds, err = dataset.PlantedPartition(cfg)
	}
	if err != nil {
		return nil, 0, err
	}
	// Edges numbered by destination: the sampler reads no edge-ID map.
	if ds.Graph, _, err = ds.Graph.ReorderEdges(graph.ByDst); err != nil {
		return nil, 0, err
	}
	d, err := serve.NewData(ds)
	return d, ds.NumClasses, err
}

// model returns -model's model, or -arch's with -params' weights.
func (o *options) model(d *serve.Data, classes int) (*serve.Model, error) {
	if o.Model != "" {
		m, err := serve.LoadModel(o.Model)
		if err != nil {
			return nil, fmt.Errorf("-model: %w", err)
		}
		return m, nil
	}
	agg, _ := o.aggregator()
	widths := []int{d.Features.Shape()[1]}
	for range o.Layers - 1 {
		widths = append(widths, o.Hidden)
	}
	widths = append(widths, classes)
	s, err := train.NewShared(1e-3, 0) // the optimiser is never used
	if err != nil {
		return nil, err
	}
	stack := &sage.Stack{Widths: widths, Aggregator: agg, Name: "sage", Values: s.Value}
	// Build the stack once, on one node and one neighbour per layer, so
	// that s holds every parameter.
	ones := make([]int, o.Layers)
	for i := range ones {
		ones[i] = 1
	}
	smp, err := sampling.NewMultiLayer(d.Graph, ones, sampling.Options{})
	if err != nil {
		return nil, err
	}
	mb, err := smp.Sample([]int32{0}, 0)
	if err != nil {
		return nil, err
	}
	if _, err := train.BuildBatch(stack, s, mb, d.Features); err != nil {
		return nil, err
	}
	// Without -params the weights are the layers' initialisation, drawn
	// from their names (the same on every run).
	if !o.RandomWeights {
		if err := nn.LoadParams(o.Params, s.Nodes()); err != nil {
			return nil, fmt.Errorf("-params: %w", err)
		}
	}
	names := make([]string, o.Layers)
	for l := range names {
		names[l] = fmt.Sprintf("sage%d", l+1)
	}
	return &serve.Model{Stack: stack, Params: s, InFeatures: widths[0], LayerNames: names}, nil
}
