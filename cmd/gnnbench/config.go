package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// config is the parsed command line.
type config struct {
	suites  []string
	data    string
	json    bool
	out     string
	plotDir string
	from    string
	quick   bool
	dryRun  bool
	verbose bool
	profile string
	memProf string

	epochs, warmup int
	memCap         int64
	memLimitFrac   float64
	timeCap        time.Duration
	keepGoing      bool
	seed           uint64

	models, paths, datasets []string
	dropout                 string
	input                   string
	device                  string
	recompute               bool

	sweeps      []string
	densities   []float64
	nodesList   []int
	hiddens     []int
	synthNodes  int
	baseDensity float64
	feat        int
	hidden      int
	heads       int
	classes     int

	scaleCases []scaleCase

	kernelNodes int
	kernelEdges int64
	edgeOrder   string
}

// scaleCase is one model of the scale suite.
type scaleCase struct {
	model                        string
	nodes                        int
	edges                        int64 // before self-loops
	feat, hidden, heads, classes int
	// series groups cases that stop at the first that runs out of memory;
	// "" puts a case in its model's series.
	series string
}

func (c scaleCase) String() string {
	return fmt.Sprintf("%s:%d:%d:%d:%d:%d:%d", c.model, c.nodes, c.edges, c.feat, c.hidden, c.heads, c.classes)
}

// defaultScaleCases are the targets of the issue: GCN (2 layers, hidden
// 16) on 5M nodes and 250M edges; GAT 8x8 on an ogbn-products-sized graph
// (2.4M nodes, 62M edges, 100 features, 47 classes); and GAT 8x8 on uniform
// graphs of density 0.0008 (nodes = sqrt(edges/0.0008)) with more and more
// edges, to find the largest that trains under the memory cap.
var defaultScaleCases = []scaleCase{
	{"gcn", 5_000_000, 250_000_000, 64, 16, 1, 10, ""},
	{"gat", 2_400_000, 62_000_000, 100, 8, 8, 47, "products"},
	{"gat", 370_810, 110_000_000, 100, 8, 8, 47, "density"},
	{"gat", 418_330, 140_000_000, 100, 8, 8, 47, "density"},
	{"gat", 460_977, 170_000_000, 100, 8, 8, 47, "density"},
	{"gat", 500_000, 200_000_000, 100, 8, 8, 47, "density"},
}

// register defines the flags on fs with their defaults.
func (c *config) register(fs *flag.FlagSet) {
	fs.Func("suite", "comma-separated `suites` to run: planetoid, synth, scale, kernels (default planetoid)", func(s string) error {
		c.suites = splitList(s)
		return nil
	})
	fs.StringVar(&c.data, "data", "../shared/data/planetoid", "Planetoid `dir` holding cora/, citeseer/ and pubmed/")
	fs.BoolVar(&c.json, "json", false, "write one JSON object per run to stdout (the markdown table then goes to stderr)")
	fs.StringVar(&c.out, "out", "", "also append one JSON object per run to this `file`")
	fs.StringVar(&c.plotDir, "plot", "", "write PNG charts to this `dir`")
	fs.StringVar(&c.from, "from", "", "run nothing: read results (JSON lines) from this `file` and print the table and plots")
	fs.BoolVar(&c.quick, "quick", false, "tiny sizes, 2 timed epochs: a smoke test of the whole harness (flags given explicitly still apply)")
	fs.BoolVar(&c.dryRun, "dry-run", false, "list the runs and exit")
	fs.BoolVar(&c.verbose, "v", false, "pass the child processes' stderr through")
	fs.StringVar(&c.profile, "profile", "", "write a CPU profile (whole run) and a heap profile (after the last epoch) of every run to this `dir`, for go tool pprof")
	fs.StringVar(&c.memProf, "memprofile", "", "write a heap profile of every run to this `dir`, taken after its last epoch and a GC with the model live (what an epoch holds: go tool pprof -sample_index=inuse_space)")

	fs.IntVar(&c.epochs, "epochs", 10, "timed epochs per run (kernels: calls); the median is reported")
	fs.IntVar(&c.warmup, "warmup", 3, "untimed epochs before the timed ones")
	c.memCap = 20 << 30
	fs.Func("mem-cap", "kill a run whose resident memory exceeds this `size` (e.g. 20GiB, 512MiB) and record it as oom (default 20GiB)", func(s string) error {
		v, err := parseBytes(s)
		c.memCap = v
		return err
	})
	fs.Float64Var(&c.memLimitFrac, "gomemlimit", 0.85, "set GOMEMLIMIT in each run to this `fraction` of -mem-cap (0: leave GOMEMLIMIT alone)")
	fs.DurationVar(&c.timeCap, "time-cap", 20*time.Minute, "kill a run that takes longer than this (setup included) and record it as timeout")
	fs.BoolVar(&c.keepGoing, "keep-going", false, "run every size of a series even after a smaller one ran out of memory or time")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the generated graphs, features and initialisation")

	fs.Func("models", "comma-separated `models`: gcn, gat, gatv2 (default gcn,gat; gatv2 runs the fused path only)", func(s string) error { c.models = splitList(s); return nil })
	fs.Func("paths", "comma-separated `paths`: fused, unfused, dense (default all)", func(s string) error { c.paths = splitList(s); return nil })
	fs.Func("datasets", "planetoid: comma-separated `datasets` (default cora,citeseer,pubmed)", func(s string) error { c.datasets = splitList(s); return nil })
	fs.StringVar(&c.dropout, "dropout", "", "`on`, off or both (default: both for planetoid, off for synth and scale)")
	fs.BoolVar(&c.recompute, "recompute", false, "the fused GAT's layers recompute the attention in the backward instead of keeping three (edges, heads) tensors per layer (gat.WithRecompute)")
	fs.StringVar(&c.device, "device", "cpu", "models' `device`: cpu, gpu (the first GPU) or emu (the GPU emulator); gpu and emu need a binary built with -tags gnncuda and run the fused path only")
	fs.StringVar(&c.input, "input", bench.InputSparse, "planetoid features: sparse (CSR, multiplied by an SpMM, as the examples do) or dense (an N x F matrix, as DGL and PyG feed them)")

	fs.Func("sweeps", "synth: comma-separated `sweeps`: density, nodes, hidden (default all)", func(s string) error { c.sweeps = splitList(s); return nil })
	c.densities = []float64{0.0008, 0.0016, 0.0032, 0.0064, 0.0128}
	fs.Func("densities", "synth density sweep: comma-separated `densities` (default 0.0008,...,0.0128)", func(s string) error {
		var err error
		c.densities, err = parseFloats(s)
		return err
	})
	c.nodesList = []int{8192, 16384, 32768, 65536, 131072, 262144, 524288}
	fs.Func("nodes", "synth node sweep: comma-separated node `counts` (default 8192,...,524288)", func(s string) error {
		var err error
		c.nodesList, err = parseInts(s)
		return err
	})
	c.hiddens = []int{16, 32, 64, 128, 256, 512}
	fs.Func("hiddens", "synth hidden sweep: comma-separated hidden `sizes` (default 16,...,512)", func(s string) error {
		var err error
		c.hiddens, err = parseInts(s)
		return err
	})
	fs.IntVar(&c.synthNodes, "synth-nodes", 32768, "synth: nodes of the density and hidden sweeps")
	fs.Float64Var(&c.baseDensity, "synth-density", 0.0008, "synth: density of the node and hidden sweeps")
	fs.IntVar(&c.feat, "feat", 64, "synth: input features (random normal)")
	fs.IntVar(&c.hidden, "hidden", 16, "synth: hidden size of the density and node sweeps (GAT: per head)")
	fs.IntVar(&c.heads, "heads", 8, "synth: GAT and GATv2 attention heads")
	fs.IntVar(&c.classes, "classes", 10, "synth: classes (random labels, every node trains)")

	c.scaleCases = defaultScaleCases
	fs.Func("scale-cases", "scale: comma-separated `cases` model:nodes:edges:feat:hidden:heads[:classes] (edges before self-loops; default the issue's targets)", func(s string) error {
		var err error
		c.scaleCases, err = parseScaleCases(s)
		return err
	})
	fs.IntVar(&c.kernelNodes, "kernel-nodes", 100_000, "kernels: nodes of the uniform random graph")
	fs.Int64Var(&c.kernelEdges, "kernel-edges", 10_000_000, "kernels: edges of the uniform random graph")
	fs.StringVar(&c.edgeOrder, "edge-order", "", "numbering of the generated graphs' edges: `random` (as drawn) or dst (renumbered by destination, graph.ReorderEdges); default dst for synth and scale, random for kernels")
}

// applyQuick sets the small sizes of -quick on every flag not given
// explicitly (set lists the names of those given).
func (c *config) applyQuick(set map[string]bool) {
	q := func(name string, apply func()) {
		if !set[name] {
			apply()
		}
	}
	q("epochs", func() { c.epochs = 2 })
	q("warmup", func() { c.warmup = 1 })
	q("time-cap", func() { c.timeCap = time.Minute })
	q("datasets", func() { c.datasets = []string{"cora"} })
	q("densities", func() { c.densities = []float64{0.01, 0.02} })
	q("nodes", func() { c.nodesList = []int{128, 256} })
	q("hiddens", func() { c.hiddens = []int{8, 16} })
	q("synth-nodes", func() { c.synthNodes = 256 })
	q("synth-density", func() { c.baseDensity = 0.02 })
	q("feat", func() { c.feat = 16 })
	q("hidden", func() { c.hidden = 8 })
	q("heads", func() { c.heads = 2 })
	q("classes", func() { c.classes = 4 })
	q("scale-cases", func() {
		c.scaleCases = []scaleCase{{"gcn", 500, 5000, 16, 8, 1, 4, ""}, {"gat", 400, 4000, 16, 4, 2, 4, ""}, {"gat", 400, 8000, 16, 4, 2, 4, ""}}
	})
	q("kernel-nodes", func() { c.kernelNodes = 300 })
	q("kernel-edges", func() { c.kernelEdges = 3000 })
}

// validate checks the values the flags cannot check alone.
func (c *config) validate() error {
	if len(c.suites) == 0 {
		c.suites = []string{"planetoid"}
	}
	for _, s := range c.suites {
		switch s {
		case "planetoid", "synth", "scale", "kernels":
		default:
			return fmt.Errorf("unknown suite %q (want planetoid, synth, scale or kernels)", s)
		}
	}
	switch c.device {
	case "cpu", "gpu", "emu":
	default:
		return fmt.Errorf("unknown device %q (want cpu, gpu or emu)", c.device)
	}
	if c.edgeOrder != "" && c.edgeOrder != "random" && c.edgeOrder != "dst" {
		return fmt.Errorf("unknown edge order %q (want random or dst)", c.edgeOrder)
	}
	if len(c.models) == 0 {
		c.models = []string{"gcn", "gat"}
	}
	for _, m := range c.models {
		if m != "gcn" && m != "gat" && m != "gatv2" {
			return fmt.Errorf("unknown model %q (want gcn, gat or gatv2)", m)
		}
	}
	if len(c.paths) == 0 {
		c.paths = []string{"fused", "unfused", "dense"}
		if c.device != "cpu" {
			c.paths = []string{"fused"}
		}
	}
	for _, p := range c.paths {
		if p != "fused" && p != "unfused" && p != "dense" {
			return fmt.Errorf("unknown path %q (want fused, unfused or dense)", p)
		}
		if p != "fused" && c.device != "cpu" {
			return fmt.Errorf("-device %s runs the fused path only, not %s", c.device, p)
		}
	}
	if len(c.datasets) == 0 {
		c.datasets = []string{"cora", "citeseer", "pubmed"}
	}
	if len(c.sweeps) == 0 {
		c.sweeps = []string{"density", "nodes", "hidden"}
	}
	for _, s := range c.sweeps {
		if s != "density" && s != "nodes" && s != "hidden" {
			return fmt.Errorf("unknown sweep %q (want density, nodes or hidden)", s)
		}
	}
	switch c.dropout {
	case "", "on", "off", "both":
	default:
		return fmt.Errorf("-dropout %q: want on, off or both", c.dropout)
	}
	switch c.input {
	case bench.InputDense, bench.InputSparse:
	default:
		return fmt.Errorf("-input %q: want sparse or dense", c.input)
	}
	if c.epochs < 1 || c.warmup < 0 {
		return fmt.Errorf("need -epochs >= 1 and -warmup >= 0")
	}
	if c.memCap <= 0 || c.timeCap <= 0 {
		return fmt.Errorf("need positive -mem-cap and -time-cap")
	}
	if c.memLimitFrac < 0 || c.memLimitFrac > 1 {
		return fmt.Errorf("-gomemlimit %v: want a fraction in [0, 1]", c.memLimitFrac)
	}
	return nil
}

// dropouts returns the dropout settings to run, def being the suite's
// default.
func (c *config) dropouts(def string) []bool {
	d := c.dropout
	if d == "" {
		d = def
	}
	switch d {
	case "on":
		return []bool{true}
	case "off":
		return []bool{false}
	}
	return []bool{false, true}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := parseCount(f)
		if err != nil {
			return nil, err
		}
		out = append(out, int(v))
	}
	return out, nil
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseCount parses a positive count with an optional k, m or b suffix
// (powers of 1000): "250m" is 250,000,000.
func parseCount(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1000_000, strings.TrimSuffix(s, "m")
	case strings.HasSuffix(s, "b"):
		mult, s = 1000_000_000, strings.TrimSuffix(s, "b")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v*float64(mult) > 1e15 {
		return 0, fmt.Errorf("%q is not a positive count", s)
	}
	return int64(math.Round(v * float64(mult))), nil
}

// parseBytes parses a size: a number with an optional unit B, KiB, MiB,
// GiB, TiB (or K, M, G, T, KB, MB, GB, TB, all powers of 1024).
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{{"TIB", 1 << 40}, {"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10},
		{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			mult, t = u.mult, strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a positive size", s)
	}
	return int64(v * mult), nil
}

func parseScaleCases(s string) ([]scaleCase, error) {
	var out []scaleCase
	for _, f := range splitList(s) {
		parts := strings.Split(f, ":")
		if len(parts) != 6 && len(parts) != 7 {
			return nil, fmt.Errorf("scale case %q: want model:nodes:edges:feat:hidden:heads[:classes]", f)
		}
		c := scaleCase{model: parts[0], classes: 10}
		if c.model != "gcn" && c.model != "gat" && c.model != "gatv2" {
			return nil, fmt.Errorf("scale case %q: unknown model", f)
		}
		var v [6]int64
		for i, p := range parts[1:] {
			x, err := parseCount(p)
			if err != nil {
				return nil, fmt.Errorf("scale case %q: %w", f, err)
			}
			v[i] = x
		}
		c.nodes, c.edges, c.feat, c.hidden, c.heads = int(v[0]), v[1], int(v[2]), int(v[3]), int(v[4])
		if len(parts) == 7 {
			c.classes = int(v[5])
		}
		out = append(out, c)
	}
	return out, nil
}
