package linkpred

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

func mustCOO(t *testing.T, ns, nd int, s, d []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(ns, nd, s, d)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bidirected returns a random graph on n nodes in which every edge has a
// reverse partner: m random pairs u-v listed as u->v and v->u at random
// positions, some self-loops, and some parallel pairs.
func bidirected(t *testing.T, rng *rand.Rand, n, m int) *graph.Graph {
	t.Helper()
	var src, dst []int32
	for range m {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v {
			src, dst = append(src, u), append(dst, u)
			continue
		}
		src, dst = append(src, u, v), append(dst, v, u)
		if rng.IntN(8) == 0 { // a parallel pair
			src, dst = append(src, v, u), append(dst, u, v)
		}
	}
	perm := rng.Perm(len(src))
	ps, pd := make([]int32, len(src)), make([]int32, len(src))
	for i, p := range perm {
		ps[i], pd[i] = src[p], dst[p]
	}
	return mustCOO(t, n, n, ps, pd)
}

// checkSplit checks the invariants of a split of g by cfg.
func checkSplit(t *testing.T, name string, g *graph.Graph, cfg SplitConfig, s *EdgeSplit) {
	t.Helper()
	src, dst := g.COO()
	E := g.NumEdges()
	// Sizes, with PyG's rounding.
	P := E
	if cfg.Undirected {
		P = 0
		for e := range src {
			if src[e] <= dst[e] {
				P++
			}
		}
	}
	numVal, numTest := int(cfg.Val*float64(P)), int(cfg.Test*float64(P))
	numTrain := P - numVal - numTest
	numDisjoint := int(cfg.DisjointTrain * float64(numTrain))
	wantTrainSup := numTrain
	if numDisjoint > 0 {
		wantTrainSup = numDisjoint
	}
	for _, c := range []struct {
		what string
		p    *Part
		want int
	}{{"train", &s.Train, wantTrainSup}, {"val", &s.Val, numVal}, {"test", &s.Test, numTest}} {
		p := c.p
		if len(p.Src) != c.want || len(p.Dst) != c.want || len(p.EIDs) != c.want {
			t.Fatalf("%s: %s has %d/%d/%d supervision pairs, want %d", name, c.what, len(p.Src), len(p.Dst), len(p.EIDs), c.want)
		}
		if (!cfg.Undirected && p.ReverseEIDs != nil) || (cfg.Undirected && len(p.ReverseEIDs) != c.want) {
			t.Fatalf("%s: %s has %d reverse IDs, Undirected %v", name, c.what, len(p.ReverseEIDs), cfg.Undirected)
		}
		if !slices.IsSorted(p.EIDs) || !slices.IsSorted(p.GraphEIDs) {
			t.Errorf("%s: %s edge IDs not in increasing order", name, c.what)
		}
		for i, e := range p.EIDs {
			if p.Src[i] != src[e] || p.Dst[i] != dst[e] {
				t.Fatalf("%s: %s pair %d is %d->%d but parent edge %d is %d->%d", name, c.what, i, p.Src[i], p.Dst[i], e, src[e], dst[e])
			}
			if cfg.Undirected {
				r := p.ReverseEIDs[i]
				if src[e] > dst[e] || src[r] != dst[e] || dst[r] != src[e] || (r == e) != (src[e] == dst[e]) {
					t.Fatalf("%s: %s pair %d: edge %d (%d->%d) has reverse %d (%d->%d)", name, c.what, i, e, src[e], dst[e], r, src[r], dst[r])
				}
			}
		}
		gs, gd := p.Graph.COO()
		if p.Graph.NumSrc() != g.NumSrc() || p.Graph.NumDst() != g.NumDst() || len(gs) != len(p.GraphEIDs) {
			t.Fatalf("%s: %s message graph %v with %d edge IDs, parent %v", name, c.what, p.Graph, len(p.GraphEIDs), g)
		}
		for i, e := range p.GraphEIDs {
			if gs[i] != src[e] || gd[i] != dst[e] {
				t.Fatalf("%s: %s message edge %d is %d->%d but parent edge %d is %d->%d", name, c.what, i, gs[i], gd[i], e, src[e], dst[e])
			}
		}
		if cfg.Undirected && !symmetric(gs, gd) {
			t.Errorf("%s: %s message graph is not symmetric: a reverse pair was split", name, c.what)
		}
	}
	// Edge sets: message passing grows train -> val -> test by exactly the
	// supervision edges (and their reverses) of the disjoint part and of val;
	// test's message passing plus the test supervision is everything.
	set := func(ids ...[]int64) []int {
		cnt := make([]int, E)
		for _, l := range ids {
			for _, e := range l {
				cnt[e]++
			}
		}
		return cnt
	}
	withRev := func(p *Part) []int64 {
		if !cfg.Undirected {
			return p.EIDs
		}
		out := slices.Clone(p.EIDs)
		for i, r := range p.ReverseEIDs {
			if r != p.EIDs[i] {
				out = append(out, r)
			}
		}
		return out
	}
	disjoint := []int64(nil)
	if numDisjoint > 0 {
		disjoint = withRev(&s.Train)
	} else if !slices.Equal(set(withRev(&s.Train)), set(s.Train.GraphEIDs)) {
		t.Errorf("%s: without a disjoint part, train supervision is not train message passing", name)
	}
	for _, c := range []struct {
		what      string
		got, want []int
	}{
		{"val message passing = train's + disjoint", set(s.Val.GraphEIDs), set(s.Train.GraphEIDs, disjoint)},
		{"test message passing = val's + val supervision", set(s.Test.GraphEIDs), set(s.Val.GraphEIDs, withRev(&s.Val))},
		{"test message passing + test supervision = all", set(s.Test.GraphEIDs, withRev(&s.Test)), set(allIDs(E))},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %s does not hold", name, c.what)
		}
	}
	// No leakage (implied by the counts above being 0 or 1, checked
	// directly for clarity).
	leak := func(what string, sup []int64, mps ...[]int64) {
		for _, mp := range mps {
			in := set(mp)
			for _, e := range sup {
				if in[e] > 0 {
					t.Errorf("%s: %s edge %d passes messages", name, what, e)
					return
				}
			}
		}
	}
	leak("disjoint train supervision", disjoint, s.Train.GraphEIDs)
	leak("val supervision", withRev(&s.Val), s.Train.GraphEIDs, s.Val.GraphEIDs)
	leak("test supervision", withRev(&s.Test), s.Train.GraphEIDs, s.Val.GraphEIDs, s.Test.GraphEIDs)
}

func allIDs(n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	return ids
}

// symmetric reports whether the edge multiset equals its reverse.
func symmetric(s, d []int32) bool {
	a, b := make([]uint64, len(s)), make([]uint64, len(s))
	for i := range s {
		a[i], b[i] = pack(s[i], d[i]), pack(d[i], s[i])
	}
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestSplitEdgesProperties checks the split's invariants on random directed
// and bidirected graphs over a grid of ratios.
func TestSplitEdgesProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	ratios := []SplitConfig{
		{Val: 0.05, Test: 0.1},
		{Val: 0.1, Test: 0.2, DisjointTrain: 0.3},
		{Val: 0, Test: 0.5},
		{Val: 0.3, Test: 0},
		{Val: 0, Test: 0, DisjointTrain: 0.5},
		{Val: 0.49, Test: 0.5, DisjointTrain: 0.99},
	}
	for trial := range 30 {
		n := 1 + rng.IntN(40)
		m := 1 + rng.IntN(200)
		cfg := ratios[trial%len(ratios)]
		cfg.Seed = rng.Uint64()
		dir, err := generate.Uniform(n, int64(m), uint64(trial))
		if err != nil {
			t.Fatal(err)
		}
		s, err := SplitEdges(dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkSplit(t, "directed", dir, cfg, s)

		und := bidirected(t, rng, n, m)
		cfg.Undirected = true
		s, err = SplitEdges(und, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkSplit(t, "undirected", und, cfg, s)
	}
	// A bipartite graph splits as a directed one.
	bi := generate.CompleteBipartite(4, 6)
	cfg := SplitConfig{Val: 0.2, Test: 0.25, DisjointTrain: 0.5, Seed: 3}
	s, err := SplitEdges(bi, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkSplit(t, "bipartite", bi, cfg, s)
}

// TestSplitEdgesRounding pins PyG's rounding on a graph of 10 pairs.
func TestSplitEdgesRounding(t *testing.T) {
	t.Parallel()
	g := generate.Cycle(10).Reverse()
	und, err := generate.Cycle(10).ToBidirected()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		g                           *graph.Graph
		cfg                         SplitConfig
		train, val, test, trainMsgs int
	}{
		// floor(1.5) = 1 val, floor(2.5) = 2 test, 7 train, all supervising.
		{g, SplitConfig{Val: 0.15, Test: 0.25}, 7, 1, 2, 7},
		// 8 train: floor(2.4) = 2 disjoint supervise, 6 pass messages.
		{g, SplitConfig{Val: 0.1, Test: 0.1, DisjointTrain: 0.3}, 2, 1, 1, 6},
		// Every count rounds down to 0: all 10 train, no disjoint part.
		{g, SplitConfig{Val: 0.05, Test: 0.05, DisjointTrain: 0.05}, 10, 0, 0, 10},
		// 10 pairs as above; message passing holds both directions.
		{und, SplitConfig{Val: 0.15, Test: 0.25, Undirected: true}, 7, 1, 2, 14},
	} {
		s, err := SplitEdges(c.g, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := []int{len(s.Train.EIDs), len(s.Val.EIDs), len(s.Test.EIDs), s.Train.Graph.NumEdges()}; !slices.Equal(got, []int{c.train, c.val, c.test, c.trainMsgs}) {
			t.Errorf("%+v: train/val/test supervision and train messages = %v, want %v", c.cfg, got, []int{c.train, c.val, c.test, c.trainMsgs})
		}
	}
}

// TestSplitEdgesDeterministic: a seed gives one split, another seed another.
func TestSplitEdgesDeterministic(t *testing.T) {
	t.Parallel()
	g, err := generate.Uniform(100, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := SplitConfig{Val: 0.1, Test: 0.2, DisjointTrain: 0.2, Seed: 5}
	a, _ := SplitEdges(g, cfg)
	b, _ := SplitEdges(g, cfg)
	cfg.Seed = 6
	c, _ := SplitEdges(g, cfg)
	if !slices.Equal(a.Test.EIDs, b.Test.EIDs) || !slices.Equal(a.Train.GraphEIDs, b.Train.GraphEIDs) {
		t.Error("same seed, different splits")
	}
	if slices.Equal(a.Test.EIDs, c.Test.EIDs) {
		t.Error("seeds 5 and 6 give the same test edges")
	}
}

func TestSplitEdgesErrors(t *testing.T) {
	t.Parallel()
	g := generate.Cycle(5)
	for _, c := range []struct {
		g    *graph.Graph
		cfg  SplitConfig
		want string
	}{
		{g, SplitConfig{Val: -0.1}, "Val ratio -0.1 outside [0, 1)"},
		{g, SplitConfig{Test: 1}, "Test ratio 1 outside [0, 1)"},
		{g, SplitConfig{Val: math.NaN()}, "Val ratio NaN"},
		{g, SplitConfig{DisjointTrain: 1.5}, "DisjointTrain ratio 1.5"},
		{g, SplitConfig{Val: 0.5, Test: 0.5}, "leaves no training edges"},
		{generate.Empty(4), SplitConfig{Val: 0.1}, "no edges"},
		{g, SplitConfig{Undirected: true}, "edge 0 (0 -> 1) has no reverse edge 1 -> 0"},
		{mustCOO(t, 3, 3, []int32{0, 1, 2}, []int32{1, 0, 1}), SplitConfig{Undirected: true}, "edge 2 (2 -> 1) has no reverse"},
		{mustCOO(t, 3, 3, []int32{0, 1, 0}, []int32{1, 0, 1}), SplitConfig{Undirected: true}, "edge 2 (0 -> 1) has no reverse"},
		{generate.CompleteBipartite(2, 3), SplitConfig{Undirected: true}, "needs a homogeneous graph"},
	} {
		if _, err := SplitEdges(c.g, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v on %v: err = %v, want it to contain %q", c.cfg, c.g, err, c.want)
		}
	}
}
