package sampling_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/sampling"
)

func uniformGraph(t testing.TB, n int, e int64) *graph.Graph {
	t.Helper()
	g, err := generate.Uniform(n, e, 7)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkBlock checks a block against its parent: destinations first among
// the sources, every edge mapped to a parent edge with the same endpoints
// (reversed for Out), and sources distinct.
func checkBlock(t *testing.T, g *graph.Graph, b *sampling.Block, seeds []int32, dir sampling.Direction) {
	t.Helper()
	if !slices.Equal(b.DstNodes(), seeds) || b.NumDst() != len(seeds) || b.NumSrc() != len(b.SrcNodes) {
		t.Fatalf("block %v: destinations %v, want %v", b.Graph, b.DstNodes(), seeds)
	}
	seen := map[int32]bool{}
	for _, v := range b.SrcNodes {
		if seen[v] {
			t.Fatalf("source node %d appears twice", v)
		}
		seen[v] = true
	}
	ps, pd := g.COO()
	bs, bd := b.COO()
	for k := range bs {
		u, v := ps[b.EdgeIDs[k]], pd[b.EdgeIDs[k]]
		if dir == sampling.Out {
			u, v = v, u
		}
		if b.SrcNodes[bs[k]] != u || b.DstNodes()[bd[k]] != v {
			t.Fatalf("block edge %d: %d -> %d, parent edge %d is %d -> %d (%v)",
				k, b.SrcNodes[bs[k]], b.DstNodes()[bd[k]], b.EdgeIDs[k], ps[b.EdgeIDs[k]], pd[b.EdgeIDs[k]], dir)
		}
	}
}

// TestFanoutAllIsFullNeighbourhood checks that fanout -1, and a fanout at
// least the degree without replacement, give every in-edge (or out-edge)
// of every seed in edge-ID order.
func TestFanoutAllIsFullNeighbourhood(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 300, 3000)
	seeds := []int32{5, 17, 0, 299, 123, 64}
	byDst, _, err := g.ReorderEdges(graph.ByDst) // the CSC's edge IDs follow its order
	if err != nil || !byDst.CSC().Ordered {
		t.Fatalf("ReorderEdges: %v", err)
	}
	for _, run := range []struct {
		g   *graph.Graph
		dir sampling.Direction
	}{{g, sampling.In}, {g, sampling.Out}, {byDst, sampling.In}} {
		g, dir := run.g, run.dir
		for _, tc := range []struct {
			fanout  int
			replace bool
		}{{-1, false}, {-1, true}, {1000, false}} {
			f, err := sampling.SampleNeighbors(g, seeds, tc.fanout, sampling.Options{Direction: dir, Replace: tc.replace}, 1)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range seeds {
				want, _ := g.InEdges(int(v))
				if dir == sampling.Out {
					want, _ = g.OutEdges(int(v))
				}
				got := f.EdgeIDs[f.Indptr[i]:f.Indptr[i+1]]
				if !slices.Equal(got, want) {
					t.Errorf("%v fanout %d: seed %d edges %v, want %v", dir, tc.fanout, v, got, want)
				}
			}
			b, err := sampling.ToBlock(f)
			if err != nil {
				t.Fatal(err)
			}
			checkBlock(t, g, b, seeds, dir)
		}
	}

	// Two layers of -1: the blocks hold the full two-hop in-neighbourhood.
	m, err := sampling.NewMultiLayer(g, []int{-1, -1}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := m.Sample(seeds, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkBlock(t, g, mb.Blocks[1], seeds, sampling.In)
	checkBlock(t, g, mb.Blocks[0], mb.Blocks[1].SrcNodes, sampling.In)
	want := 0
	for _, v := range mb.Blocks[1].SrcNodes {
		want += g.InDegree(int(v))
	}
	if mb.Blocks[0].NumEdges() != want || !slices.Equal(mb.InputNodes, mb.Blocks[0].SrcNodes) || !slices.Equal(mb.OutputNodes, seeds) {
		t.Errorf("first block has %d edges, want %d; or input/output nodes wrong", mb.Blocks[0].NumEdges(), want)
	}
}

// chiSquare returns the statistic of observed counts against expected ones.
func chiSquare(observed []int, expected []float64) float64 {
	var x float64
	for i, o := range observed {
		d := float64(o) - expected[i]
		x += d * d / expected[i]
	}
	return x
}

// Critical values of the chi-square law at p = 0.001, by degrees of freedom.
var chi2Critical = map[int]float64{3: 16.27, 4: 18.47, 5: 20.52, 9: 27.88}

// starGraph returns a graph whose node 0 has in-edges from nodes 1..d, edge
// i-1 from node i.
func starGraph(t *testing.T, d int) *graph.Graph {
	src, dst := make([]int32, d), make([]int32, d)
	for i := range d {
		src[i] = int32(i + 1)
	}
	g, err := graph.FromCOO(d+1, d+1, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// drawMany samples node 0 of g trials times (one seed position per trial).
func drawMany(t *testing.T, g *graph.Graph, trials, fanout int, opts sampling.Options) *sampling.Frontier {
	t.Helper()
	f, err := sampling.SampleNeighbors(g, make([]int32, trials), fanout, opts, 11)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// pairIndex numbers the unordered pairs {a < b} of [0, d).
func pairIndex(a, b int64, d int) int {
	if a > b {
		a, b = b, a
	}
	i := 0
	for x := range int(a) {
		i += d - 1 - x
	}
	return i + int(b-a-1)
}

func TestUniformFrequencies(t *testing.T) {
	t.Parallel()
	const d, trials = 5, 20000
	g := starGraph(t, d)

	// Without replacement every 2-subset of the 5 edges is equally likely.
	f := drawMany(t, g, trials, 2, sampling.Options{})
	pairs := make([]int, d*(d-1)/2)
	for i := range trials {
		e := f.EdgeIDs[f.Indptr[i]:f.Indptr[i+1]]
		if len(e) != 2 || e[0] >= e[1] {
			t.Fatalf("trial %d drew %v, want two distinct edges in order", i, e)
		}
		pairs[pairIndex(e[0], e[1], d)]++
	}
	expected := slices.Repeat([]float64{trials / float64(len(pairs))}, len(pairs))
	if x := chiSquare(pairs, expected); x > chi2Critical[len(pairs)-1] {
		t.Errorf("pairs %v: chi-square %.2f over the p=0.001 bound %.2f", pairs, x, chi2Critical[len(pairs)-1])
	}

	// With replacement the 3 draws of a trial are independent and uniform.
	f = drawMany(t, g, trials, 3, sampling.Options{Replace: true})
	counts := make([]int, d)
	for _, e := range f.EdgeIDs {
		counts[e]++
	}
	expected = slices.Repeat([]float64{3 * trials / float64(d)}, d)
	if x := chiSquare(counts, expected); x > chi2Critical[d-1] || f.NumEdges() != 3*trials {
		t.Errorf("counts %v (%d draws): chi-square %.2f over %.2f", counts, f.NumEdges(), x, chi2Critical[d-1])
	}

	// The three algorithms without replacement: a bit set for rows of at
	// most 64 candidates, Floyd's over a sorted slice for small fanouts,
	// a partial shuffle for large ones.
	for _, tc := range []struct{ d, k int }{{50, 40}, {100, 10}, {100, 40}} {
		inclusionTest(t, starGraph(t, tc.d), tc.d, tc.k)
	}
}

// inclusionTest checks that, drawing k of the d in-edges of node 0 without
// replacement, every edge is drawn with probability k/d: each edge's count
// over the trials is binomial, and the squares of the standardised counts
// sum to a chi-square law with d-1 degrees of freedom (the counts sum to a
// constant, see below).
func inclusionTest(t *testing.T, g *graph.Graph, d, k int) {
	t.Helper()
	const trials = 2000
	f := drawMany(t, g, trials, k, sampling.Options{})
	counts := make([]int, d)
	for i := range trials {
		e := f.EdgeIDs[f.Indptr[i]:f.Indptr[i+1]]
		if len(e) != k || !slices.IsSorted(e) || len(slices.Compact(slices.Clone(e))) != k {
			t.Fatalf("d=%d k=%d: trial %d drew %v, want %d distinct edges in order", d, k, i, e, k)
		}
		for _, x := range e {
			counts[x]++
		}
	}
	p := float64(k) / float64(d)
	var x float64
	for _, c := range counts {
		z := (float64(c) - trials*p) / math.Sqrt(trials*p*(1-p))
		x += z * z
	}
	// The counts' covariance is T p (1-p) d/(d-1) on the d-1 directions
	// orthogonal to their fixed sum, so x (d-1)/d follows the chi-square
	// law of d-1 degrees of freedom; its p=0.001 bound by the
	// Wilson-Hilferty approximation.
	nu := float64(d - 1)
	bound := nu * math.Pow(1-2/(9*nu)+3.09*math.Sqrt(2/(9*nu)), 3)
	if x *= nu / float64(d); x > bound {
		t.Errorf("d=%d k=%d: chi-square %.2f over %.2f (counts %v)", d, k, x, bound, counts)
	}
}

func TestWeightedFrequencies(t *testing.T) {
	t.Parallel()
	const d, trials = 5, 20000
	g := starGraph(t, d)
	w := []float32{1, 2, 0, 3, 4} // edge 2 is never drawn
	var total float64
	for _, x := range w {
		total += float64(x)
	}

	// With replacement: draw counts proportional to the weights.
	f := drawMany(t, g, trials, 2, sampling.Options{Replace: true, Weights: w})
	counts := make([]int, d)
	for _, e := range f.EdgeIDs {
		counts[e]++
	}
	if counts[2] != 0 {
		t.Errorf("edge of weight 0 drawn %d times", counts[2])
	}
	var obs []int
	var exp []float64
	for e, x := range w {
		if x > 0 {
			obs = append(obs, counts[e])
			exp = append(exp, 2*trials*float64(x)/total)
		}
	}
	if x := chiSquare(obs, exp); x > chi2Critical[len(obs)-1] {
		t.Errorf("counts %v: chi-square %.2f over %.2f", counts, x, chi2Critical[len(obs)-1])
	}

	// Without replacement: two edges drawn one after the other, each in
	// proportion to its weight among the rest; the pair probabilities are
	// exact sums over the two orders.
	f = drawMany(t, g, trials, 2, sampling.Options{Weights: w})
	pos := []int64{0, 1, 3, 4}
	pairCounts := map[[2]int64]int{}
	for i := range trials {
		e := f.EdgeIDs[f.Indptr[i]:f.Indptr[i+1]]
		if len(e) != 2 || e[0] >= e[1] || e[0] == 2 || e[1] == 2 {
			t.Fatalf("trial %d drew %v", i, e)
		}
		pairCounts[[2]int64{e[0], e[1]}]++
	}
	obs, exp = nil, nil
	for a := range pos {
		for b := a + 1; b < len(pos); b++ {
			wa, wb := float64(w[pos[a]]), float64(w[pos[b]])
			p := wa/total*wb/(total-wa) + wb/total*wa/(total-wb)
			obs = append(obs, pairCounts[[2]int64{pos[a], pos[b]}])
			exp = append(exp, trials*p)
		}
	}
	if x := chiSquare(obs, exp); x > chi2Critical[len(obs)-1] {
		t.Errorf("pairs %v, expected %v: chi-square %.2f over %.2f", obs, exp, x, chi2Critical[len(obs)-1])
	}

	// Only three edges have weight: a fanout of 4 takes those three.
	f = drawMany(t, g, 3, 4, sampling.Options{Weights: []float32{0, 2, 0, 3, 4}})
	if !slices.Equal(f.EdgeIDs[:f.Indptr[1]], []int64{1, 3, 4}) {
		t.Errorf("fanout above the positive-weight edges drew %v", f.EdgeIDs[:f.Indptr[1]])
	}
}

func TestExclude(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 200, 4000)
	seeds := []int32{3, 9, 27, 81}
	var exclude []int64
	for _, v := range seeds {
		in, _ := g.InEdges(int(v))
		exclude = append(exclude, in[:len(in)/2]...) // half of every seed's in-edges
	}
	exclude = append(exclude, exclude[0]) // repeats are allowed
	excluded := map[int64]bool{}
	for _, e := range exclude {
		excluded[e] = true
	}
	for _, opts := range []sampling.Options{
		{Exclude: exclude},
		{Exclude: exclude, Replace: true},
		{Exclude: exclude, Weights: slices.Repeat([]float32{1}, g.NumEdges())},
	} {
		for _, fanout := range []int{-1, 3, 40} {
			for s := range uint64(20) {
				f, err := sampling.SampleNeighbors(g, seeds, fanout, opts, s)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range f.EdgeIDs {
					if excluded[e] {
						t.Fatalf("replace %t fanout %d: excluded edge %d sampled", opts.Replace, fanout, e)
					}
				}
				if fanout == -1 {
					for i, v := range seeds {
						in, _ := g.InEdges(int(v))
						want := slices.DeleteFunc(in, func(e int64) bool { return excluded[e] })
						if got := f.EdgeIDs[f.Indptr[i]:f.Indptr[i+1]]; !slices.Equal(got, want) {
							t.Fatalf("seed %d: %v, want the kept edges %v", v, got, want)
						}
					}
				}
			}
		}
	}
	if _, err := sampling.SampleNeighbors(g, seeds, 2, sampling.Options{Exclude: []int64{int64(g.NumEdges())}}, 1); err == nil ||
		!strings.Contains(err.Error(), "excluded edge 4000 out of range") {
		t.Errorf("out-of-range exclusion: %v", err)
	}
}

// TestDeterministicAcrossGOMAXPROCS checks identical blocks for GOMAXPROCS 1
// and 2, with batches large enough to run in parallel.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	g := uniformGraph(t, 20000, 200000)
	seeds := make([]int32, 1500)
	for i := range seeds {
		seeds[i] = int32(i * 13)
	}
	w := make([]float32, g.NumEdges())
	for i := range w {
		w[i] = float32(i%7) + 0.5
	}
	for _, opts := range []sampling.Options{{}, {Replace: true}, {Weights: w}, {Direction: sampling.Out, Weights: w, Replace: true}} {
		m, err := sampling.NewMultiLayer(g, []int{15, 10, 5}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var runs [2]*sampling.MiniBatch
		for i, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			runs[i], err = m.Sample(seeds, 42)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
		}
		for l := range runs[0].Blocks {
			a, b := runs[0].Blocks[l], runs[1].Blocks[l]
			as, ad := a.COO()
			bs, bd := b.COO()
			if !slices.Equal(as, bs) || !slices.Equal(ad, bd) || !slices.Equal(a.SrcNodes, b.SrcNodes) || !slices.Equal(a.EdgeIDs, b.EdgeIDs) {
				t.Errorf("%+v: layer %d differs between GOMAXPROCS 1 and 2", opts.Direction, l)
			}
			checkBlock(t, g, a, runs[0].Blocks[l].DstNodes(), opts.Direction)
		}
		other, err := m.Sample(seeds, 43)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(other.Blocks[0].EdgeIDs, runs[0].Blocks[0].EdgeIDs) {
			t.Errorf("seeds 42 and 43 drew the same first block")
		}
	}
}

func TestSamplingErrors(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 10, 40)
	bip, _ := graph.FromCOO(2, 3, []int32{0}, []int32{2})
	neg := slices.Repeat([]float32{1}, 40)
	in, _ := g.InEdges(4)
	neg[in[0]] = -1
	for _, tc := range []struct {
		name   string
		g      *graph.Graph
		seeds  []int32
		fanout int
		opts   sampling.Options
		want   string
	}{
		{"fanout", g, []int32{1}, -2, sampling.Options{}, "fanout -2"},
		{"seed", g, []int32{1, 10}, 2, sampling.Options{}, "seed 10 (position 1) out of range [0, 10)"},
		{"weights length", g, []int32{1}, 2, sampling.Options{Weights: []float32{1}}, "1 weights for 40 edges"},
		{"negative weight", g, []int32{1, 4}, 2, sampling.Options{Weights: neg}, fmt.Sprintf("edge %d has weight -1", in[0])},
		{"bipartite", bip, []int32{0}, 2, sampling.Options{}, "not homogeneous"},
		{"direction", g, []int32{0}, 2, sampling.Options{Direction: 7}, "unknown direction"},
	} {
		if _, err := sampling.SampleNeighbors(tc.g, tc.seeds, tc.fanout, tc.opts, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := sampling.NewMultiLayer(g, nil, sampling.Options{}); err == nil {
		t.Errorf("no layers accepted")
	}
	if _, err := sampling.NewMultiLayer(g, []int{5, -3}, sampling.Options{}); err == nil || !strings.Contains(err.Error(), "layer 1 fanout -3") {
		t.Errorf("bad fanout: %v", err)
	}
	m, _ := sampling.NewMultiLayer(g, []int{2}, sampling.Options{})
	if _, err := m.Sample([]int32{3, 4, 3}, 1); err == nil || !strings.Contains(err.Error(), "seed 3 repeated at positions 0 and 2") {
		t.Errorf("repeated seed: %v", err)
	}
	// The relabeler is clean after the error: the next batch works.
	if mb, err := m.Sample([]int32{3, 4}, 1); err != nil {
		t.Error(err)
	} else {
		checkBlock(t, g, mb.Blocks[0], []int32{3, 4}, sampling.In)
	}
}

func TestToBlock(t *testing.T) {
	t.Parallel()
	// Seeds 7 and 2; neighbours in order 5, 2, 5, 9, 7.
	f := &sampling.Frontier{
		NumNodes:  10,
		Seeds:     []int32{7, 2},
		Indptr:    []int64{0, 3, 5},
		Neighbors: []int32{5, 2, 5, 9, 7},
		EdgeIDs:   []int64{10, 11, 12, 13, 14},
	}
	b, err := sampling.ToBlock(f)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := b.COO()
	if !slices.Equal(b.SrcNodes, []int32{7, 2, 5, 9}) || b.NumDst() != 2 ||
		!slices.Equal(src, []int32{2, 1, 2, 3, 0}) || !slices.Equal(dst, []int32{0, 0, 0, 1, 1}) ||
		!slices.Equal(b.EdgeIDs, f.EdgeIDs) {
		t.Errorf("block src nodes %v, COO %v -> %v, edges %v", b.SrcNodes, src, dst, b.EdgeIDs)
	}
	b.EdgeIDs[0] = -5
	if f.EdgeIDs[0] != 10 {
		t.Errorf("ToBlock shares the frontier's edge IDs")
	}
	for name, bad := range map[string]*sampling.Frontier{
		"repeat":    {NumNodes: 10, Seeds: []int32{7, 7}, Indptr: []int64{0, 0, 0}},
		"indptr":    {NumNodes: 10, Seeds: []int32{7}, Indptr: []int64{0, 2}, Neighbors: []int32{1}, EdgeIDs: []int64{1}},
		"neighbour": {NumNodes: 10, Seeds: []int32{7}, Indptr: []int64{0, 1}, Neighbors: []int32{10}, EdgeIDs: []int64{1}},
		"seed":      {NumNodes: 10, Seeds: []int32{-1}, Indptr: []int64{0, 0}},
		"decrease":  {NumNodes: 10, Seeds: []int32{1, 2}, Indptr: []int64{0, 1, 0}, Neighbors: []int32{}, EdgeIDs: []int64{}},
	} {
		if _, err := sampling.ToBlock(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
