package generate

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// sameEdges reports whether a and b have the same sizes and edge lists.
func sameEdges(a, b *graph.Graph) bool {
	as, ad := a.COO()
	bs, bd := b.COO()
	return a.NumSrc() == b.NumSrc() && a.NumDst() == b.NumDst() &&
		slices.Equal(as, bs) && slices.Equal(ad, bd)
}

// randomGenerators are the seeded generators under a common signature. With
// chunks false they draw one random stream; with chunks true, two streams.
var randomGenerators = []struct {
	name string
	gen  func(seed uint64, chunks bool) (*graph.Graph, error)
}{
	{"Uniform", func(seed uint64, chunks bool) (*graph.Graph, error) {
		return Uniform(1000, pick(chunks, 1000, chunkEdges+123), seed)
	}},
	{"UniformDensity", func(seed uint64, chunks bool) (*graph.Graph, error) {
		return UniformDensity(int(pick(chunks, 100, 1500)), 0.5, seed)
	}},
	{"UniformDegree", func(seed uint64, chunks bool) (*graph.Graph, error) {
		return UniformDegree(int(pick(chunks, 100, 100_000)), 10.5, seed)
	}},
	{"RMAT", func(seed uint64, chunks bool) (*graph.Graph, error) {
		return RMAT(8, pick(chunks, 1000, chunkEdges+45), 0.57, 0.19, 0.19, seed)
	}},
}

// pick returns small, or large when large is true.
func pick(large bool, small, big int64) int64 {
	if large {
		return big
	}
	return small
}

func TestReproducible(t *testing.T) {
	t.Parallel()
	for _, tc := range randomGenerators {
		a, err := tc.gen(7, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, _ := tc.gen(7, false)
		c, _ := tc.gen(8, false)
		if !sameEdges(a, b) {
			t.Errorf("%s: two graphs from seed 7 differ", tc.name)
		}
		if sameEdges(a, c) {
			t.Errorf("%s: seeds 7 and 8 give the same graph", tc.name)
		}
	}
}

// TestGOMAXPROCS is not parallel: it changes GOMAXPROCS for the process.
func TestGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range randomGenerators {
		if tc.name == "UniformDensity" || tc.name == "UniformDegree" {
			continue // they only choose the edge count for Uniform
		}
		runtime.GOMAXPROCS(1)
		a, err := tc.gen(3, true)
		if err != nil {
			t.Fatal(err)
		}
		if a.NumEdges() <= chunkEdges {
			t.Fatalf("%s: %d edges fill one random stream, want more", tc.name, a.NumEdges())
		}
		runtime.GOMAXPROCS(4)
		b, _ := tc.gen(3, true)
		if !sameEdges(a, b) {
			t.Errorf("%s: graphs built with GOMAXPROCS 1 and 4 differ", tc.name)
		}
	}
}

func TestUniformPrefix(t *testing.T) {
	t.Parallel()
	small, _ := Uniform(50, 10, 1)
	large, _ := Uniform(50, chunkEdges+10, 1) // two streams
	ss, sd := small.COO()
	ls, ld := large.COO()
	if !slices.Equal(ss, ls[:10]) || !slices.Equal(sd, ld[:10]) {
		t.Errorf("Uniform(50, 10, 1) is not a prefix of Uniform(50, %d, 1)", chunkEdges+10)
	}
}

func TestUniformSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		gen      func() (*graph.Graph, error)
		n, edges int
	}{
		{"Uniform", func() (*graph.Graph, error) { return Uniform(10, 33, 1) }, 10, 33},
		{"Uniform/no-edges", func() (*graph.Graph, error) { return Uniform(5, 0, 1) }, 5, 0},
		{"Uniform/empty", func() (*graph.Graph, error) { return Uniform(0, 0, 1) }, 0, 0},
		{"Uniform/one-node", func() (*graph.Graph, error) { return Uniform(1, 4, 1) }, 1, 4},
		// The DGL ablation graph of density 0.0008: round(0.0008 * 32768^2).
		{"UniformDensity/dgl", func() (*graph.Graph, error) { return UniformDensity(32768, 0.0008, 1) }, 32768, 858993},
		{"UniformDensity/full", func() (*graph.Graph, error) { return UniformDensity(30, 1, 1) }, 30, 900},
		{"UniformDensity/zero", func() (*graph.Graph, error) { return UniformDensity(30, 0, 1) }, 30, 0},
		{"UniformDegree", func() (*graph.Graph, error) { return UniformDegree(1000, 3.9, 1) }, 1000, 3900},
		{"UniformDegree/round", func() (*graph.Graph, error) { return UniformDegree(3, 0.5, 1) }, 3, 2},
		{"RMAT", func() (*graph.Graph, error) { return RMAT(4, 100, 0.57, 0.19, 0.19, 1) }, 16, 100},
		{"RMAT/scale0", func() (*graph.Graph, error) { return RMAT(0, 3, 0.57, 0.19, 0.19, 1) }, 1, 3},
		{"RMAT/d0", func() (*graph.Graph, error) { return RMAT(3, 10, 0.5, 0.3, 0.2, 1) }, 8, 10},
	} {
		g, err := tc.gen()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if g.NumSrc() != tc.n || g.NumDst() != tc.n || g.NumEdges() != tc.edges {
			t.Errorf("%s: got %d x %d nodes and %d edges, want %d x %d and %d",
				tc.name, g.NumSrc(), g.NumDst(), g.NumEdges(), tc.n, tc.n, tc.edges)
		}
		// FromCOO checked the ID ranges; check every ID once more.
		src, dst := g.COO()
		for e := range src {
			if src[e] < 0 || int(src[e]) >= tc.n || dst[e] < 0 || int(dst[e]) >= tc.n {
				t.Fatalf("%s: edge %d is %d -> %d, outside [0, %d)", tc.name, e, src[e], dst[e], tc.n)
			}
		}
	}
}

func TestGeneratorErrors(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		gen  func() (*graph.Graph, error)
	}{
		{"Uniform/negative-nodes", func() (*graph.Graph, error) { return Uniform(-1, 0, 1) }},
		{"Uniform/negative-edges", func() (*graph.Graph, error) { return Uniform(3, -1, 1) }},
		{"Uniform/edges-without-nodes", func() (*graph.Graph, error) { return Uniform(0, 1, 1) }},
		{"Uniform/too-many-nodes", func() (*graph.Graph, error) { return Uniform(graph.MaxNodes+1, 0, 1) }},
		{"UniformDensity/negative", func() (*graph.Graph, error) { return UniformDensity(10, -0.1, 1) }},
		{"UniformDensity/above-one", func() (*graph.Graph, error) { return UniformDensity(10, 1.5, 1) }},
		{"UniformDensity/nan", func() (*graph.Graph, error) { return UniformDensity(10, nan, 1) }},
		{"UniformDensity/negative-nodes", func() (*graph.Graph, error) { return UniformDensity(-10, 0.5, 1) }},
		{"UniformDegree/negative", func() (*graph.Graph, error) { return UniformDegree(10, -1, 1) }},
		{"UniformDegree/inf", func() (*graph.Graph, error) { return UniformDegree(10, math.Inf(1), 1) }},
		{"UniformDegree/nan", func() (*graph.Graph, error) { return UniformDegree(10, nan, 1) }},
		{"UniformDegree/overflow", func() (*graph.Graph, error) { return UniformDegree(1000, 1e17, 1) }},
		{"RMAT/negative-scale", func() (*graph.Graph, error) { return RMAT(-1, 0, 0.57, 0.19, 0.19, 1) }},
		{"RMAT/large-scale", func() (*graph.Graph, error) { return RMAT(31, 0, 0.57, 0.19, 0.19, 1) }},
		{"RMAT/negative-edges", func() (*graph.Graph, error) { return RMAT(3, -5, 0.57, 0.19, 0.19, 1) }},
		{"RMAT/negative-prob", func() (*graph.Graph, error) { return RMAT(3, 5, 0.57, -0.19, 0.19, 1) }},
		{"RMAT/nan-prob", func() (*graph.Graph, error) { return RMAT(3, 5, 0.57, 0.19, nan, 1) }},
		{"RMAT/sum-above-one", func() (*graph.Graph, error) { return RMAT(3, 5, 0.57, 0.29, 0.19, 1) }},
	} {
		g, err := tc.gen()
		if err == nil {
			t.Errorf("%s: got %v, want an error", tc.name, g)
			continue
		}
		if msg := err.Error(); len(msg) < 10 || msg[:10] != "generate: " {
			t.Errorf("%s: error %q lacks the \"generate: \" prefix", tc.name, msg)
		}
	}
}

// degreeStats returns the mean and maximum out-degree and the number of
// self-loops of g.
func degreeStats(g *graph.Graph) (mean float64, maxDeg int64, loops int) {
	for _, d := range g.OutDegrees() {
		maxDeg = max(maxDeg, d)
	}
	src, dst := g.COO()
	for e := range src {
		if src[e] == dst[e] {
			loops++
		}
	}
	return float64(g.NumEdges()) / float64(g.NumSrc()), maxDeg, loops
}

func TestUniformDegrees(t *testing.T) {
	t.Parallel()
	const n, deg = 20_000, 10
	g, err := UniformDegree(n, deg, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Out- and in-degrees are Binomial(n*deg, 1/n), close to Poisson(10):
	// the largest of 20000 such degrees is about 25, and the histogram of
	// in-degrees should match the out-degrees'.
	_, maxDeg, loops := degreeStats(g)
	if maxDeg > 3*deg {
		t.Errorf("max out-degree %d, want below %d for a uniform graph", maxDeg, 3*deg)
	}
	// Expected self-loops: n*deg/n = 10; 40 is more than 9 standard deviations away.
	if loops > 40 {
		t.Errorf("%d self-loops, want about %d", loops, deg)
	}
	for _, side := range []struct {
		name string
		d    []int64
	}{{"out", g.OutDegrees()}, {"in", g.InDegrees()}} {
		var sum, sq float64
		for _, d := range side.d {
			sum += float64(d)
			sq += float64(d) * float64(d)
		}
		mean := sum / n
		variance := sq/n - mean*mean
		// Poisson: variance equals the mean; allow 10% (the standard error of
		// the sample variance here is about 1.5%).
		if math.Abs(variance-deg) > 0.1*deg {
			t.Errorf("%s-degree variance %.2f, want about %d", side.name, variance, deg)
		}
	}
}

func TestUniformEndpoints(t *testing.T) {
	t.Parallel()
	// Every node of a small graph should be hit about equally often.
	const n, edges = 7, 70_000
	g, _ := Uniform(n, edges, 11)
	var hits [n]int
	src, dst := g.COO()
	for e := range src {
		hits[src[e]]++
		hits[dst[e]]++
	}
	want := 2.0 * edges / n
	for v, h := range hits {
		// The standard deviation is about sqrt(want) = 141; allow 5.
		if math.Abs(float64(h)-want) > 5*math.Sqrt(want) {
			t.Errorf("node %d is an endpoint %d times, want about %.0f", v, h, want)
		}
	}
}
