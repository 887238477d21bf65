package main

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// job is one planned run. Jobs of one series (same suite, model, path and
// settings, growing sizes) share a series name: once one runs out of
// memory or time, the larger ones are recorded as such without running.
type job struct {
	spec   bench.Spec
	series string
}

// plan returns the jobs of the configured suites, in order.
func plan(c *config) ([]job, error) {
	var jobs []job
	for _, s := range c.suites {
		var js []job
		var err error
		switch s {
		case "planetoid":
			js, err = planetoidJobs(c)
		case "synth":
			js = synthJobs(c)
		case "scale":
			js = scaleJobs(c)
		case "kernels":
			js = kernelJobs(c)
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, js...)
	}
	return jobs, nil
}

// withPaths returns one job per configured path for spec.
func withPaths(c *config, spec bench.Spec, series string) []job {
	var js []job
	for _, p := range c.paths {
		s := spec
		if s.Model == bench.GATv2 && p != bench.Fused {
			continue // GATv2 has only the fused path
		}
		s.Path = p
		if c.device != "cpu" && !s.IsKernel() {
			s.Device = c.device
		}
		s.Recompute = c.recompute && s.Model == bench.GAT && p == bench.Fused
		js = append(js, job{spec: s, series: series + "/" + p})
	}
	return js
}

// planetoidJobs: GCN (2 layers, hidden 16) and GAT (8 heads of 8, one
// output head, eight for PubMed as in the GAT paper) on each dataset, with
// and without the canonical dropout, datasets in increasing size.
func planetoidJobs(c *config) ([]job, error) {
	type ds struct {
		dir  string
		meta bench.PlanetoidMeta
	}
	var sets []ds
	for _, name := range c.datasets {
		dir := filepath.Join(c.data, name)
		m, err := bench.ReadPlanetoidMeta(dir)
		if err != nil {
			return nil, fmt.Errorf("planetoid: %w (set -data to the folder holding cora/, citeseer/ and pubmed/)", err)
		}
		sets = append(sets, ds{dir, m})
	}
	slices.SortStableFunc(sets, func(a, b ds) int { return a.meta.Nodes - b.meta.Nodes })
	var jobs []job
	for _, d := range sets {
		for _, model := range c.models {
			for _, drop := range c.dropouts("both") {
				s := bench.Spec{
					Suite: "planetoid", Model: model, Dataset: d.meta.Name, DataDir: d.dir, Input: c.input, Dropout: drop,
					Nodes: d.meta.Nodes, Edges: int64(d.meta.Edges + d.meta.Nodes), Feat: d.meta.Features,
					Hidden: 16, Heads: 1, Classes: d.meta.Classes, Epochs: c.epochs, Warmup: c.warmup, Seed: c.seed,
				}
				if model == bench.GAT || model == bench.GATv2 {
					s.Hidden, s.Heads, s.OutHeads = 8, 8, 1
					if d.meta.Name == "pubmed" {
						s.OutHeads = 8
					}
					if c.quick {
						// The dense GAT holds several N x N matrices per
						// head: -quick keeps them to -heads (2).
						s.Hidden, s.Heads, s.OutHeads = c.hidden, c.heads, 1
					}
				}
				jobs = append(jobs, withPaths(c, s, fmt.Sprintf("planetoid/%s/%v", model, drop))...)
			}
		}
	}
	return jobs, nil
}

// synthJobs: the seed's ablations on uniform random graphs, each sweep in
// increasing size.
func synthJobs(c *config) []job {
	var jobs []job
	spec := func(sweep, model string, n int, density float64, hidden int, drop bool) bench.Spec {
		s := bench.Spec{
			Suite: "synth", Sweep: sweep, Model: model, Dataset: "synth", Input: bench.InputDense, Dropout: drop,
			Nodes: n, Edges: bench.DensityEdges(n, density) + int64(n), Density: density,
			Feat: c.feat, Hidden: hidden, Heads: 1, Classes: c.classes, Epochs: c.epochs, Warmup: c.warmup, Seed: c.seed,
			EdgeOrder: c.order(bench.OrderDst),
		}
		if model == bench.GAT || model == bench.GATv2 {
			s.Heads, s.OutHeads = c.heads, 1
		}
		return s
	}
	for _, sweep := range c.sweeps {
		for _, model := range c.models {
			for _, drop := range c.dropouts("off") {
				series := fmt.Sprintf("synth/%s/%s/%v", sweep, model, drop)
				switch sweep {
				case "density":
					for _, d := range sorted(c.densities) {
						jobs = append(jobs, withPaths(c, spec(sweep, model, c.synthNodes, d, c.hidden, drop), series)...)
					}
				case "nodes":
					for _, n := range sorted(c.nodesList) {
						jobs = append(jobs, withPaths(c, spec(sweep, model, n, c.baseDensity, c.hidden, drop), series)...)
					}
				case "hidden":
					for _, h := range sorted(c.hiddens) {
						jobs = append(jobs, withPaths(c, spec(sweep, model, c.synthNodes, c.baseDensity, h, drop), series)...)
					}
				}
			}
		}
	}
	return jobs
}

// scaleJobs: the largest models, each case on all configured paths; cases
// of one model form a series in increasing edges.
func scaleJobs(c *config) []job {
	cases := slices.Clone(c.scaleCases)
	slices.SortStableFunc(cases, func(a, b scaleCase) int { return int(a.edges+int64(a.nodes)) - int(b.edges+int64(b.nodes)) })
	var jobs []job
	for _, sc := range cases {
		if !slices.Contains(c.models, sc.model) {
			continue
		}
		for _, drop := range c.dropouts("off") {
			s := bench.Spec{
				Suite: "scale", Sweep: sc.series, Model: sc.model, Dataset: "synth", Input: bench.InputDense, Dropout: drop,
				Nodes: sc.nodes, Edges: sc.edges + int64(sc.nodes), Feat: sc.feat, Hidden: sc.hidden, Heads: 1,
				Classes: sc.classes, Epochs: c.epochs, Warmup: c.warmup, Seed: c.seed,
				EdgeOrder: c.order(bench.OrderDst),
			}
			if sc.model == bench.GAT || sc.model == bench.GATv2 {
				s.Heads, s.OutHeads = sc.heads, 1
			}
			jobs = append(jobs, withPaths(c, s, fmt.Sprintf("scale/%s/%s/%v", sc.model, sc.series, drop))...)
		}
	}
	return jobs
}

// kernelCases are the kernels timed at the reference case: GCN's copy_u
// and weighted sums, GAT's aggregation (8 heads of 8, one attention weight
// per head), its scores (u_add_v of 8 heads) and edge softmax, and dot
// products.
var kernelCases = []struct {
	model, op   string
	heads, feat int
}{
	{bench.SpMM, bench.OpCopyUSum, 1, 64},
	{bench.SpMM, bench.OpUMulESum, 1, 64},
	{bench.SpMM, bench.OpUMulESum, 8, 8},
	{bench.SDDMM, bench.OpUAddV, 8, 1},
	{bench.SDDMM, bench.OpUDotV, 1, 64},
	{bench.SDDMM, bench.OpUDotV, 8, 8},
	{bench.EdgeSoftmax, bench.OpSoftmaxBy, 8, 1},
}

// kernelJobs: forward calls of the kernels on a uniform random graph
// (default 100,000 nodes, 10,000,000 edges, float32).
func kernelJobs(c *config) []job {
	var jobs []job
	for _, k := range kernelCases {
		s := bench.Spec{
			Suite: "kernels", Model: k.model, Op: k.op, Dataset: "synth", Input: bench.InputDense,
			Nodes: c.kernelNodes, Edges: c.kernelEdges, Feat: k.feat, Heads: k.heads,
			Epochs: c.epochs, Warmup: c.warmup, Seed: c.seed, EdgeOrder: c.order(bench.OrderRandom),
		}
		jobs = append(jobs, withPaths(c, s, fmt.Sprintf("kernels/%s/%s/%dx%d", k.model, k.op, k.heads, k.feat))...)
	}
	return jobs
}

// order returns the -edge-order flag, or def when it is not given.
func (c *config) order(def string) string {
	if c.edgeOrder != "" {
		return c.edgeOrder
	}
	return def
}

func sorted[T int | float64](xs []T) []T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return slices.Compact(s)
}

// denseEstimate returns a lower bound of the memory the dense path of s
// needs: its N x N float32 matrices (one per head for the kernels, one for
// the models), or 0 for the other paths.
func denseEstimate(s *bench.Spec) int64 {
	if s.Path != bench.Dense {
		return 0
	}
	b := bench.DenseBytes(s.Nodes)
	if s.IsKernel() {
		b *= int64(s.Heads)
	}
	return b
}
