package dataset

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// smallPlanted is a configuration small enough for table tests.
func smallPlanted() PlantedConfig {
	cfg := DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 300, 16
	return cfg
}

// samePlanted reports whether a and b are equal datasets.
func samePlanted(a, b *Dataset) bool {
	as, ad := a.Graph.COO()
	bs, bd := b.Graph.COO()
	return slices.Equal(as, bs) && slices.Equal(ad, bd) &&
		slices.Equal(a.Features.Dense, b.Features.Dense) &&
		slices.Equal(a.Labels, b.Labels) &&
		slices.Equal(a.Train, b.Train) && slices.Equal(a.Val, b.Val) && slices.Equal(a.Test, b.Test)
}

func TestPlantedReproducible(t *testing.T) {
	t.Parallel()
	cfg := smallPlanted()
	a, err := PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PlantedPartition(cfg)
	if !samePlanted(a, b) {
		t.Error("two datasets from the same configuration differ")
	}
	cfg.Seed++
	c, _ := PlantedPartition(cfg)
	if slices.Equal(a.Labels, c.Labels) || slices.Equal(a.Features.Dense, c.Features.Dense) || slices.Equal(a.Train, c.Train) {
		t.Error("seeds 1 and 2 share labels, features or training set")
	}
}

func TestPlantedIndependentParts(t *testing.T) {
	t.Parallel()
	cfg := smallPlanted()
	a, _ := PlantedPartition(cfg)
	cfg.Features, cfg.Signal = 5, 0.5
	b, _ := PlantedPartition(cfg)
	as, ad := a.Graph.COO()
	bs, bd := b.Graph.COO()
	if !slices.Equal(as, bs) || !slices.Equal(ad, bd) || !slices.Equal(a.Labels, b.Labels) || !slices.Equal(a.Test, b.Test) {
		t.Error("changing the features changed the graph, labels or split")
	}
	cfg.MeanDegree, cfg.Homophily = 6, 0.3
	c, _ := PlantedPartition(cfg)
	if !slices.Equal(a.Labels, c.Labels) || !slices.Equal(a.Train, c.Train) || !slices.Equal(a.Test, c.Test) {
		t.Error("changing the graph changed the labels or split")
	}
}

// TestPlantedGOMAXPROCS is not parallel: it changes GOMAXPROCS for the
// process. Features are drawn in blocks of featureBlock rows.
func TestPlantedGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cfg := smallPlanted()
	cfg.Nodes = 3*featureBlock + 5
	runtime.GOMAXPROCS(1)
	a, err := PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(4)
	b, _ := PlantedPartition(cfg)
	if !samePlanted(a, b) {
		t.Error("datasets built with GOMAXPROCS 1 and 4 differ")
	}
}

// checkPlanted checks the invariants PlantedPartition promises for cfg.
func checkPlanted(t *testing.T, name string, cfg PlantedConfig, ds *Dataset) {
	t.Helper()
	n := cfg.Nodes
	if ds.Name != "planted" || ds.NumClasses != cfg.Classes || len(ds.Labels) != n {
		t.Errorf("%s: name %q, %d classes, %d labels; want planted, %d, %d",
			name, ds.Name, ds.NumClasses, len(ds.Labels), cfg.Classes, n)
	}
	g := ds.Graph
	if g.NumSrc() != n || g.NumDst() != n {
		t.Errorf("%s: graph has %d x %d nodes, want %d", name, g.NumSrc(), g.NumDst(), n)
	}
	f := ds.Features
	if f.Rows != n || f.Cols != cfg.Features || len(f.Dense) != n*cfg.Features || f.IsSparse() {
		t.Errorf("%s: features %d x %d (%d dense values), want dense %d x %d", name, f.Rows, f.Cols, len(f.Dense), n, cfg.Features)
	}

	// Balanced labels.
	counts := make([]int, cfg.Classes)
	for v, y := range ds.Labels {
		if y < 0 || int(y) >= cfg.Classes {
			t.Fatalf("%s: node %d has label %d outside [0, %d)", name, v, y, cfg.Classes)
		}
		counts[y]++
	}
	if slices.Max(counts)-slices.Min(counts) > 1 {
		t.Errorf("%s: class sizes %v are not balanced", name, counts)
	}

	// A simple symmetric graph without self-loops, edges in (src, dst) order.
	src, dst := g.COO()
	want := 2 * int(math.Round(float64(n)*cfg.MeanDegree/2))
	if len(src) != want {
		t.Errorf("%s: %d edges, want %d", name, len(src), want)
	}
	edges := make(map[[2]int32]bool, len(src))
	for e := range src {
		if src[e] == dst[e] {
			t.Errorf("%s: edge %d is a self-loop on %d", name, e, src[e])
		}
		if e > 0 && (src[e] < src[e-1] || src[e] == src[e-1] && dst[e] <= dst[e-1]) {
			t.Fatalf("%s: edge %d (%d -> %d) is out of order or repeated", name, e, src[e], dst[e])
		}
		edges[[2]int32{src[e], dst[e]}] = true
	}
	same := 0
	for e := range src {
		if !edges[[2]int32{dst[e], src[e]}] {
			t.Fatalf("%s: edge %d -> %d has no reverse", name, src[e], dst[e])
		}
		if ds.Labels[src[e]] == ds.Labels[dst[e]] {
			same++
		}
	}
	if len(src) > 0 {
		// Exact up to rounding one undirected edge.
		h := float64(same) / float64(len(src))
		if math.Abs(h-cfg.Homophily) > 1/float64(len(src))+1e-12 {
			t.Errorf("%s: edge homophily %.4f, want %.4f", name, h, cfg.Homophily)
		}
	}

	// Sorted, disjoint splits inside [0, n), with TrainPerClass of each class.
	perClass, val, test := splitSizes(cfg)
	if len(ds.Train) != perClass*cfg.Classes || len(ds.Val) != val || len(ds.Test) != test {
		t.Errorf("%s: split sizes %d/%d/%d, want %d/%d/%d",
			name, len(ds.Train), len(ds.Val), len(ds.Test), perClass*cfg.Classes, val, test)
	}
	in := make([]bool, n)
	trainClasses := make([]int, cfg.Classes)
	for _, s := range []struct {
		name  string
		nodes []int32
	}{{"train", ds.Train}, {"val", ds.Val}, {"test", ds.Test}} {
		for i, v := range s.nodes {
			if v < 0 || int(v) >= n {
				t.Fatalf("%s: %s node %d outside [0, %d)", name, s.name, v, n)
			}
			if i > 0 && v <= s.nodes[i-1] {
				t.Errorf("%s: %s set not strictly increasing at %d", name, s.name, i)
			}
			if in[v] {
				t.Errorf("%s: node %d is in %s and an earlier set", name, v, s.name)
			}
			in[v] = true
			if s.name == "train" {
				trainClasses[ds.Labels[v]]++
			}
		}
	}
	for y, k := range trainClasses {
		if k != perClass {
			t.Errorf("%s: %d training nodes of class %d, want %d", name, k, y, perClass)
		}
	}
}

func TestPlantedInvariants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*PlantedConfig)
	}{
		{"default", func(*PlantedConfig) {}},
		{"small", func(c *PlantedConfig) { *c = smallPlanted() }},
		{"one-node", func(c *PlantedConfig) { c.Nodes, c.Classes, c.MeanDegree = 1, 1, 0 }},
		{"one-class", func(c *PlantedConfig) { c.Nodes, c.Classes, c.Homophily = 50, 1, 1 }},
		{"no-edges", func(c *PlantedConfig) { c.Nodes, c.MeanDegree = 100, 0 }},
		{"heterophilous", func(c *PlantedConfig) { c.Nodes, c.Classes, c.Homophily = 200, 2, 0 }},
		{"homophilous", func(c *PlantedConfig) { c.Nodes, c.Homophily = 200, 1 }},
		{"dense", func(c *PlantedConfig) { c.Nodes, c.Classes, c.MeanDegree = 40, 2, 8 }},
		{"few-features", func(c *PlantedConfig) { c.Nodes, c.Features = 100, 3 }},
		{"no-split", func(c *PlantedConfig) { c.Nodes, c.TrainPerClass, c.Val, c.Test = 100, 0, 0, 0 }},
		{"tiny-split", func(c *PlantedConfig) { c.Nodes, c.Classes, c.MeanDegree = 7, 7, 0 }},
	} {
		cfg := DefaultPlantedConfig()
		tc.edit(&cfg)
		ds, err := PlantedPartition(cfg)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		checkPlanted(t, tc.name, cfg, ds)
	}
}

func TestPlantedSplitSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		nodes, classes, perClass, val, test int
		want                                [3]int
	}{
		{2708, 7, 20, 500, 1000, [3]int{20, 500, 1000}},
		{1640, 7, 20, 500, 1000, [3]int{20, 500, 1000}},
		{820, 7, 20, 500, 1000, [3]int{10, 250, 500}},
		{100, 7, 20, 500, 1000, [3]int{1, 30, 60}},
		{7, 7, 20, 500, 1000, [3]int{1, 0, 0}},
		{10, 7, 20, 500, 1000, [3]int{1, 0, 3}},
		{10, 2, 0, 20, 0, [3]int{0, 10, 0}},
	} {
		cfg := PlantedConfig{Nodes: tc.nodes, Classes: tc.classes, TrainPerClass: tc.perClass, Val: tc.val, Test: tc.test}
		p, v, s := splitSizes(cfg)
		if got := [3]int{p, v, s}; got != tc.want {
			t.Errorf("splitSizes(%d nodes, %d classes, %d/%d/%d) = %v, want %v",
				tc.nodes, tc.classes, tc.perClass, tc.val, tc.test, got, tc.want)
		}
	}
}

// nearestMeanAccuracy classifies the test nodes by the nearest class mean of
// the training nodes' rows of x (n rows of f columns).
func nearestMeanAccuracy(ds *Dataset, x []float64) float64 {
	c, f := ds.NumClasses, ds.Features.Cols
	means := make([]float64, c*f)
	counts := make([]float64, c)
	for _, v := range ds.Train {
		y := int(ds.Labels[v])
		counts[y]++
		for j := range f {
			means[y*f+j] += x[int(v)*f+j]
		}
	}
	for i := range means {
		means[i] /= counts[i/f]
	}
	correct := 0
	for _, v := range ds.Test {
		best, bestDist := 0, math.Inf(1)
		for y := range c {
			var d float64
			for j := range f {
				t := x[int(v)*f+j] - means[y*f+j]
				d += t * t
			}
			if d < bestDist {
				best, bestDist = y, d
			}
		}
		if best == int(ds.Labels[v]) {
			correct++
		}
	}
	return float64(correct) / float64(len(ds.Test))
}

// propagate returns the mean of every node's and its neighbours' rows of x.
func propagate(ds *Dataset, x []float64) []float64 {
	f := ds.Features.Cols
	out := slices.Clone(x)
	count := make([]float64, ds.Features.Rows)
	src, dst := ds.Graph.COO()
	for e := range src {
		for j := range f {
			out[int(dst[e])*f+j] += x[int(src[e])*f+j]
		}
		count[dst[e]]++
	}
	for i := range out {
		out[i] /= count[i/f] + 1
	}
	return out
}

// TestPlantedGraphMatters checks that the default task is learnable from the
// features, but far better with the graph: a nearest-class-mean classifier
// fitted on the 140 training nodes beats chance on the raw features but stays
// well below 100%, and gains much from averaging over two hops of neighbours
// (a training-free stand-in for GCN, like SGC).
func TestPlantedGraphMatters(t *testing.T) {
	t.Parallel()
	ds, err := PlantedPartition(DefaultPlantedConfig())
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(ds.Features.Dense))
	for i, v := range ds.Features.Dense {
		x[i] = float64(v)
	}
	raw := nearestMeanAccuracy(ds, x)
	smooth := nearestMeanAccuracy(ds, propagate(ds, propagate(ds, x)))
	t.Logf("nearest class mean: features %.3f, two-hop averaged features %.3f", raw, smooth)
	chance := 1 / float64(ds.NumClasses)
	if raw < 2*chance || raw > 0.8 {
		t.Errorf("feature-only accuracy %.3f, want in [%.3f, 0.8]", raw, 2*chance)
	}
	if smooth < raw+0.2 {
		t.Errorf("two-hop accuracy %.3f, want at least %.3f (feature-only + 0.2)", smooth, raw+0.2)
	}

	// Without class signal in the features, nothing is learnable.
	cfg := DefaultPlantedConfig()
	cfg.Signal = 0
	ds, _ = PlantedPartition(cfg)
	for i, v := range ds.Features.Dense {
		x[i] = float64(v)
	}
	if acc := nearestMeanAccuracy(ds, propagate(ds, x)); acc > 2*chance {
		t.Errorf("accuracy %.3f with zero signal, want about chance (%.3f)", acc, chance)
	}
}

func TestPlantedFeatureStatistics(t *testing.T) {
	t.Parallel()
	// With one class, features are Signal*m + N(0, 1) for a unit vector m.
	cfg := DefaultPlantedConfig()
	cfg.Nodes, cfg.Classes, cfg.Features, cfg.Signal, cfg.MeanDegree = 4000, 1, 8, 3, 0
	ds, err := PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Features
	mean := make([]float64, f)
	var sq float64
	for i, v := range ds.Features.Dense {
		mean[i%f] += float64(v) / float64(cfg.Nodes)
	}
	var norm float64
	for _, m := range mean {
		norm += m * m
	}
	for i, v := range ds.Features.Dense {
		d := float64(v) - mean[i%f]
		sq += d * d
	}
	variance := sq / float64(len(ds.Features.Dense))
	// Standard errors: about 0.016 per mean entry, 0.005 for the variance.
	if math.Abs(math.Sqrt(norm)-cfg.Signal) > 0.1 {
		t.Errorf("class mean has length %.3f, want %.1f", math.Sqrt(norm), cfg.Signal)
	}
	if math.Abs(variance-1) > 0.05 {
		t.Errorf("noise variance %.3f, want 1", variance)
	}
}

func TestClassMeansOrthonormal(t *testing.T) {
	t.Parallel()
	const c, f = 7, 10
	m := classMeans(c, f, newStream(1, streamMeans))
	for i := range c {
		for k := range c {
			var dot float64
			for j := range f {
				dot += m[i*f+j] * m[k*f+j]
			}
			want := 0.0
			if i == k {
				want = 1
			}
			if math.Abs(dot-want) > 1e-12 {
				t.Errorf("mean %d . mean %d = %v, want %v", i, k, dot, want)
			}
		}
	}
}

func TestPlantedErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(*PlantedConfig)
	}{
		{"zero-nodes", func(c *PlantedConfig) { c.Nodes = 0 }},
		{"negative-nodes", func(c *PlantedConfig) { c.Nodes = -5 }},
		{"zero-classes", func(c *PlantedConfig) { c.Classes = 0 }},
		{"more-classes-than-nodes", func(c *PlantedConfig) { c.Nodes, c.Classes = 5, 6 }},
		{"zero-features", func(c *PlantedConfig) { c.Features = 0 }},
		{"overflowing-features", func(c *PlantedConfig) { c.Features = math.MaxInt / 1000 }},
		{"negative-degree", func(c *PlantedConfig) { c.MeanDegree = -1 }},
		{"nan-degree", func(c *PlantedConfig) { c.MeanDegree = math.NaN() }},
		{"inf-degree", func(c *PlantedConfig) { c.MeanDegree = math.Inf(1) }},
		{"negative-homophily", func(c *PlantedConfig) { c.Homophily = -0.1 }},
		{"large-homophily", func(c *PlantedConfig) { c.Homophily = 1.1 }},
		{"nan-homophily", func(c *PlantedConfig) { c.Homophily = math.NaN() }},
		{"negative-signal", func(c *PlantedConfig) { c.Signal = -1 }},
		{"inf-signal", func(c *PlantedConfig) { c.Signal = math.Inf(1) }},
		{"negative-train", func(c *PlantedConfig) { c.TrainPerClass = -1 }},
		{"negative-val", func(c *PlantedConfig) { c.Val = -1 }},
		{"negative-test", func(c *PlantedConfig) { c.Test = -1 }},
		{"too-dense", func(c *PlantedConfig) { c.Nodes, c.MeanDegree = 20, 10 }},
		{"no-cross-pairs", func(c *PlantedConfig) { c.Nodes, c.Classes, c.Homophily = 20, 1, 0.5 }},
		{"no-same-pairs", func(c *PlantedConfig) { c.Nodes, c.Classes, c.MeanDegree = 7, 7, 1 }},
	} {
		cfg := DefaultPlantedConfig()
		tc.edit(&cfg)
		ds, err := PlantedPartition(cfg)
		if err == nil {
			t.Errorf("%s: got %d nodes, want an error", tc.name, ds.Graph.NumNodes())
			continue
		}
		if !strings.HasPrefix(err.Error(), "dataset: ") {
			t.Errorf("%s: error %q lacks the \"dataset: \" prefix", tc.name, err)
		}
	}
}

func BenchmarkPlantedPartition(b *testing.B) {
	cfg := DefaultPlantedConfig()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PlantedPartition(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlantedOverride: Override takes the fields o sets and keeps c's for
// the zero ones.
func TestPlantedOverride(t *testing.T) {
	d := DefaultPlantedConfig()
	got := d.Override(PlantedConfig{Nodes: 500, MeanDegree: 6, Seed: 9})
	want := d
	want.Nodes, want.MeanDegree, want.Seed = 500, 6, 9
	if got != want {
		t.Errorf("Override = %+v, want %+v", got, want)
	}
	if got := d.Override(PlantedConfig{}); got != d {
		t.Errorf("Override of a zero config = %+v, want the defaults %+v", got, d)
	}
}
