package sampling_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/sampling"
)

// uniformNegatives is a NegativeSampler for the tests: k destinations per
// positive drawn uniformly over n nodes, the source kept (no exclusion of
// existing edges).
type uniformNegatives struct {
	n, k int
	err  error // returned when set
}

func (u uniformNegatives) Negatives(src, dst []int32, seed uint64) ([]int32, []int32, error) {
	if u.err != nil {
		return nil, nil, u.err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ns, nd := make([]int32, 0, u.k*len(src)), make([]int32, 0, u.k*len(src))
	for i := range src {
		for range u.k {
			ns = append(ns, src[i])
			nd = append(nd, int32(rng.IntN(u.n)))
		}
	}
	return ns, nd, nil
}

// bidirected returns a graph of n nodes holding e random edges and their
// reverses, in a random edge order.
func bidirected(t testing.TB, n int, e int64, seed uint64) *graph.Graph {
	t.Helper()
	g, err := generate.Uniform(n, e, seed)
	if err != nil {
		t.Fatal(err)
	}
	s, d := g.COO()
	src, dst := slices.Concat(s, d), slices.Concat(d, s)
	rand.New(rand.NewPCG(seed, 1)).Shuffle(len(src), func(i, j int) {
		src[i], src[j] = src[j], src[i]
		dst[i], dst[j] = dst[j], dst[i]
	})
	b, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReverseEdgeIDs(t *testing.T) {
	t.Parallel()
	// 0->1 three times, 1->0 twice, an unpaired 2->3, a self-loop.
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 0, 2, 1, 1, 0}, []int32{1, 0, 1, 3, 1, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := sampling.ReverseEdgeIDs(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, 0, 5, -1, 4, 2, -1}; !slices.Equal(rev, want) {
		t.Errorf("reverse edge IDs %v, want %v", rev, want)
	}

	g = bidirected(t, 500, 4000, 3)
	src, dst := g.COO()
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		rev, err := sampling.ReverseEdgeIDs(g)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		for e, r := range rev {
			if r < 0 || src[r] != dst[e] || dst[r] != src[e] || rev[r] != int64(e) || src[e] == dst[e] && r != int64(e) {
				t.Fatalf("GOMAXPROCS %d: edge %d (%d -> %d) has reverse %d", procs, e, src[e], dst[e], r)
			}
		}
	}

	for name, g := range map[string]*graph.Graph{"empty": generate.Empty(3), "bipartite": generate.CompleteBipartite(2, 3)} {
		if _, err := sampling.ReverseEdgeIDs(g); err == nil {
			t.Errorf("%s graph accepted", name)
		}
	}
}

func TestReverseRelationEdgeIDs(t *testing.T) {
	t.Parallel()
	clicks := hetero.EdgeType{Src: "user", Rel: "clicks", Dst: "item"}
	follows := hetero.EdgeType{Src: "user", Rel: "follows", Dst: "user"}
	cg, _ := graph.FromCOO(3, 4, []int32{0, 1, 2, 2}, []int32{3, 0, 1, 3})
	fg, _ := graph.FromCOO(3, 3, []int32{0, 1}, []int32{1, 2})
	h, err := hetero.New(map[string]int{"user": 3, "item": 4}, map[hetero.EdgeType]*graph.Graph{clicks: cg, follows: fg})
	if err != nil {
		t.Fatal(err)
	}
	h, err = h.AddReverse("rev-")
	if err != nil {
		t.Fatal(err)
	}
	hom, err := h.ToHomogeneous()
	if err != nil {
		t.Fatal(err)
	}
	revClicks := hetero.EdgeType{Src: "item", Rel: "rev-clicks", Dst: "user"}
	rev, err := sampling.ReverseRelationEdgeIDs(h, hom, map[hetero.EdgeType]hetero.EdgeType{revClicks: clicks})
	if err != nil {
		t.Fatal(err)
	}
	src, dst := hom.Graph.COO()
	ci, _ := h.EdgeTypeID(clicks)
	ri, _ := h.EdgeTypeID(revClicks)
	paired := 0
	for e, r := range rev {
		typ := int(hom.EdgeType[e])
		if typ != ci && typ != ri {
			if r != -1 {
				t.Errorf("edge %d of %v has reverse %d, want -1", e, h.EdgeTypes()[typ], r)
			}
			continue
		}
		if r < 0 || src[r] != dst[e] || dst[r] != src[e] || rev[r] != int64(e) || hom.EdgeID[r] != hom.EdgeID[e] {
			t.Errorf("edge %d (%d -> %d) has reverse %d", e, src[e], dst[e], r)
		}
		paired++
	}
	if paired != 8 {
		t.Errorf("%d edges paired, want 8", paired)
	}

	// The recipe: seed edges are the relation's edges offset into the
	// homogeneous graph, and neither they nor their reverses reach a
	// block.
	m, err := sampling.NewMultiLayer(hom.Graph, []int{-1, -1}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seeds := []int64{int64(hom.EdgeOffsets[ci]) + 0, int64(hom.EdgeOffsets[ci]) + 3}
	l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{BatchSize: 2, Exclude: sampling.ExcludeReverse, ReverseEdgeIDs: rev})
	if err != nil {
		t.Fatal(err)
	}
	for eb, err := range l.Epoch(0) {
		if err != nil {
			t.Fatal(err)
		}
		blocked := 0
		for _, b := range eb.Blocks {
			for _, e := range b.EdgeIDs {
				if slices.Contains(seeds, e) || slices.Contains(seeds, rev[e]) {
					t.Errorf("block edge %d is a seed edge or the reverse of one", e)
				}
				blocked++
			}
		}
		if blocked == 0 {
			t.Errorf("no block edges at all")
		}
	}

	revFollows := hetero.EdgeType{Src: "user", Rel: "rev-follows", Dst: "user"}
	for name, reverse := range map[string]map[hetero.EdgeType]hetero.EdgeType{
		"unknown":   {clicks: {Src: "item", Rel: "nope", Dst: "user"}},
		"two":       {clicks: revClicks, revClicks: follows},
		"counts":    {follows: revClicks},
		"endpoints": {follows: {Src: "user", Rel: "follows", Dst: "user"}},
	} {
		if _, err := sampling.ReverseRelationEdgeIDs(h, hom, reverse); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := sampling.ReverseRelationEdgeIDs(h, hom, map[hetero.EdgeType]hetero.EdgeType{follows: revFollows}); err != nil {
		t.Error(err)
	}
}

// TestEdgeLoaderExclusion checks, with every neighbour taken (fan-out -1),
// that each block holds exactly its destinations' edges minus the batch's
// seed edges (and their reverses), so nothing excluded leaks in and
// nothing else is lost; and that without exclusion the seed edges appear.
func TestEdgeLoaderExclusion(t *testing.T) {
	t.Parallel()
	g := bidirected(t, 400, 1500, 5)
	rev, err := sampling.ReverseEdgeIDs(g)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int64, 300)
	for i := range seeds {
		seeds[i] = int64(7 * i)
	}
	for _, dir := range []sampling.Direction{sampling.In, sampling.Out} {
		m, err := sampling.NewMultiLayer(g, []int{-1, -1}, sampling.Options{Direction: dir})
		if err != nil {
			t.Fatal(err)
		}
		view := g.CSC()
		if dir == sampling.Out {
			view = g.CSR()
		}
		for _, mode := range []sampling.ExcludeMode{sampling.ExcludeNone, sampling.ExcludeSelf, sampling.ExcludeReverse} {
			l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{
				BatchSize: 64, Shuffle: true, Seed: 3, Exclude: mode, ReverseEdgeIDs: rev,
				Negatives: uniformNegatives{n: g.NumNodes(), k: 2},
			})
			if err != nil {
				t.Fatal(err)
			}
			batches := 0
			for eb, err := range l.Epoch(1) {
				if err != nil {
					t.Fatal(err)
				}
				batches++
				excluded := map[int64]bool{}
				if mode != sampling.ExcludeNone {
					for _, e := range eb.EdgeIDs {
						excluded[e] = true
						if mode == sampling.ExcludeReverse {
							excluded[rev[e]] = true
						}
					}
				}
				sawSeed := false
				for li, b := range eb.Blocks {
					checkBlock(t, g, b, b.DstNodes(), dir)
					got := slices.Clone(b.EdgeIDs)
					slices.Sort(got)
					var want []int64
					for _, v := range b.DstNodes() {
						lo, hi := view.Row(int(v))
						for p := lo; p < hi; p++ {
							if e := int64(view.EIDs[p]); !excluded[e] {
								want = append(want, e)
							}
						}
					}
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Fatalf("%v %v layer %d: block edges differ from the destinations' edges minus the excluded ones", dir, mode, li)
					}
					for _, e := range b.EdgeIDs {
						if slices.Contains(eb.EdgeIDs, e) {
							sawSeed = true
						}
					}
				}
				if mode == sampling.ExcludeNone && !sawSeed {
					t.Fatalf("%v: no seed edge in the blocks without exclusion", dir)
				}
			}
			if batches != 5 {
				t.Errorf("%d batches, want 5", batches)
			}
		}
	}
}

// TestEdgeBatchPairs checks that the pair graphs map back to the seed
// edges' endpoints and to the negative sampler's pairs, that the output
// nodes are the endpoints in order of first appearance, and that an epoch
// covers the seed edges.
func TestEdgeBatchPairs(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 1000, 8000)
	m, err := sampling.NewMultiLayer(g, []int{5, 3}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int64, 250)
	for i := range seeds {
		seeds[i] = int64(31 * i)
	}
	ps, pd := g.COO()
	const k = 3
	neg := uniformNegatives{n: g.NumNodes(), k: k}
	for _, negs := range []sampling.NegativeSampler{nil, neg} {
		l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{BatchSize: 64, Shuffle: true, Seed: 11, Negatives: negs, Exclude: sampling.ExcludeSelf})
		if err != nil {
			t.Fatal(err)
		}
		var covered []int64
		order := l.Order(0)
		b := 0
		for eb, err := range l.Epoch(0) {
			if err != nil {
				t.Fatal(err)
			}
			if want := order[b*64 : min(b*64+64, len(order))]; !slices.Equal(eb.EdgeIDs, want) {
				t.Fatalf("batch %d: edges %v, want %v", b, eb.EdgeIDs, want)
			}
			b++
			covered = append(covered, eb.EdgeIDs...)
			out := eb.OutputNodes
			if !slices.Equal(out, eb.Blocks[1].DstNodes()) || eb.Pos.NumNodes() != len(out) {
				t.Fatalf("pair graph of %d nodes, %d output nodes", eb.Pos.NumNodes(), len(out))
			}
			s, d := eb.Pos.COO()
			var ends []int32
			for i, e := range eb.EdgeIDs {
				if out[s[i]] != ps[e] || out[d[i]] != pd[e] {
					t.Fatalf("positive %d: %d -> %d, edge %d is %d -> %d", i, out[s[i]], out[d[i]], e, ps[e], pd[e])
				}
			}
			for _, e := range eb.EdgeIDs {
				ends = append(ends, ps[e])
			}
			for _, e := range eb.EdgeIDs {
				ends = append(ends, pd[e])
			}
			if negs == nil {
				if eb.Neg != nil {
					t.Fatal("negative graph without a negative sampler")
				}
			} else {
				ns, nd := eb.Neg.COO()
				if len(ns) != k*len(eb.EdgeIDs) || eb.Neg.NumNodes() != len(out) {
					t.Fatalf("%d negatives for %d positives", len(ns), len(eb.EdgeIDs))
				}
				for i := range ns {
					if out[ns[i]] != ps[eb.EdgeIDs[i/k]] {
						t.Fatalf("negative %d has source %d, its positive %d", i, out[ns[i]], ps[eb.EdgeIDs[i/k]])
					}
					ends = append(ends, out[ns[i]])
				}
				for i := range nd {
					ends = append(ends, out[nd[i]])
				}
			}
			var first []int32
			seen := map[int32]bool{}
			for _, v := range ends {
				if !seen[v] {
					seen[v] = true
					first = append(first, v)
				}
			}
			if !slices.Equal(first, out) {
				t.Fatalf("output nodes %v, want the endpoints in order of first appearance %v", out, first)
			}
		}
		slices.Sort(covered)
		if !slices.Equal(covered, seeds) {
			t.Errorf("epoch does not cover the seed edges once each")
		}
	}

	// Pairs that are not edges, for evaluation.
	l, _ := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{BatchSize: 8, Negatives: neg})
	eb, err := l.SamplePairs([]int32{3, 999, 3}, []int32{998, 3, 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s, d := eb.Pos.COO(); eb.EdgeIDs != nil || !slices.Equal(eb.OutputNodes[:4], []int32{3, 999, 998, 4}) ||
		!slices.Equal(s, []int32{0, 1, 0}) || !slices.Equal(d, []int32{2, 0, 3}) || eb.Neg.NumEdges() != 9 {
		t.Errorf("SamplePairs: output nodes %v, pairs %v -> %v, edge IDs %v, %d negatives", eb.OutputNodes, s, d, eb.EdgeIDs, eb.Neg.NumEdges())
	}
}

// TestEdgeLoaderDeterminism checks that an epoch is the same at
// GOMAXPROCS 1 and 2, on batches large enough to sample in parallel, and
// that another epoch differs.
func TestEdgeLoaderDeterminism(t *testing.T) {
	g := bidirected(t, 20000, 100000, 9)
	rev, err := sampling.ReverseEdgeIDs(g)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sampling.NewMultiLayer(g, []int{10, 5}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]int64, 3000)
	for i := range seeds {
		seeds[i] = int64(50 * i)
	}
	l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{
		BatchSize: 1000, Shuffle: true, Seed: 4, Exclude: sampling.ExcludeReverse, ReverseEdgeIDs: rev,
		Negatives: uniformNegatives{n: g.NumNodes(), k: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	digest := func(epoch int) string {
		var sb strings.Builder
		for eb, err := range l.Epoch(epoch) {
			if err != nil {
				t.Fatal(err)
			}
			s, d := eb.Pos.COO()
			ns, nd := eb.Neg.COO()
			fmt.Fprint(&sb, eb.EdgeIDs, eb.OutputNodes, eb.InputNodes, s, d, ns, nd)
			for _, b := range eb.Blocks {
				bs, bd := b.COO()
				fmt.Fprint(&sb, b.EdgeIDs, b.SrcNodes, bs, bd)
			}
		}
		return sb.String()
	}
	var got [2]string
	for i, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		got[i] = digest(0)
		runtime.GOMAXPROCS(prev)
	}
	if got[0] != got[1] {
		t.Errorf("epoch differs at GOMAXPROCS 1 and 2")
	}
	if digest(1) == got[0] {
		t.Errorf("epochs 0 and 1 are the same")
	}
}

func TestEdgeLoaderErrors(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 100, 400)
	m, _ := sampling.NewMultiLayer(g, []int{4}, sampling.Options{})
	rev := make([]int64, 400)
	for i := range rev {
		rev[i] = -1
	}
	badRev := slices.Clone(rev)
	badRev[17] = 400
	for name, tc := range map[string]struct {
		m     *sampling.MultiLayer
		edges []int64
		opts  sampling.EdgeLoaderOptions
		want  string
	}{
		"batch":       {m, []int64{1}, sampling.EdgeLoaderOptions{}, "batch size 0"},
		"negative id": {m, []int64{1, -2}, sampling.EdgeLoaderOptions{BatchSize: 1}, "seed edge -2 (position 1)"},
		"range":       {m, []int64{1, 2, 400}, sampling.EdgeLoaderOptions{BatchSize: 1}, "seed edge 400 (position 2) out of range [0, 400)"},
		"mode":        {m, nil, sampling.EdgeLoaderOptions{BatchSize: 1, Exclude: 7}, "ExcludeMode(7)"},
		"no reverse":  {m, nil, sampling.EdgeLoaderOptions{BatchSize: 1, Exclude: sampling.ExcludeReverse}, "without ReverseEdgeIDs"},
		"rev length":  {m, nil, sampling.EdgeLoaderOptions{BatchSize: 1, Exclude: sampling.ExcludeReverse, ReverseEdgeIDs: rev[:399]}, "399 reverse edge IDs for 400 edges"},
		"rev range":   {m, nil, sampling.EdgeLoaderOptions{BatchSize: 1, ReverseEdgeIDs: badRev}, "reverse edge ID 400 of edge 17"},
		"nil sampler": {nil, nil, sampling.EdgeLoaderOptions{BatchSize: 1}, "nil sampler"},
	} {
		_, err := sampling.NewEdgeLoader(tc.m, tc.edges, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tc.want)
		}
	}
	empty, _ := sampling.NewMultiLayer(generate.Empty(5), []int{2}, sampling.Options{})
	if _, err := sampling.NewEdgeLoader(empty, nil, sampling.EdgeLoaderOptions{BatchSize: 1}); err == nil || !strings.Contains(err.Error(), "no edges") {
		t.Errorf("graph without edges: error %v", err)
	}

	// Errors of a batch: the sampler's own, and a sampler breaking the
	// contract.
	for name, tc := range map[string]struct {
		neg  sampling.NegativeSampler
		want string
	}{
		"sampler error": {uniformNegatives{err: errors.New("boom")}, "boom"},
		"out of range":  {uniformNegatives{n: 1000, k: 1}, "out of range [0, 100)"},
		"counts":        {badCount{}, "returned 1 sources and 1 destinations for 2 positives"},
	} {
		l, err := sampling.NewEdgeLoader(m, []int64{1, 2, 3}, sampling.EdgeLoaderOptions{BatchSize: 2, Negatives: tc.neg})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for eb, err := range l.Epoch(0) {
			n++
			if eb != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: batch %v, error %v, want one containing %q", name, eb, err, tc.want)
			}
		}
		if n != 1 {
			t.Errorf("%s: %d items after an error, want 1", name, n)
		}
	}
	l, _ := sampling.NewEdgeLoader(m, []int64{1}, sampling.EdgeLoaderOptions{BatchSize: 1})
	if _, err := l.Sample([]int64{3, 401}, 1); err == nil || !strings.Contains(err.Error(), "seed edge 401 (position 1)") {
		t.Errorf("Sample out of range: %v", err)
	}
	if _, err := l.SamplePairs([]int32{1}, []int32{2, 3}, 1); err == nil {
		t.Errorf("SamplePairs of different lengths accepted")
	}
	if _, err := l.SamplePairs([]int32{1, 2}, []int32{2, 100}, 1); err == nil || !strings.Contains(err.Error(), "pair 1 (2, 100)") {
		t.Errorf("SamplePairs out of range: %v", err)
	}
}

// badCount returns one negative whatever the number of positives.
type badCount struct{}

func (badCount) Negatives(src, dst []int32, seed uint64) ([]int32, []int32, error) {
	return []int32{0}, []int32{1}, nil
}

// TestEdgeLoaderExcludeMerge checks that the batch's exclusions add to the
// sampler's own Options.Exclude, on a graph whose edges are numbered in
// view order (ReorderEdges: excluded edges found without a search) and on
// one whose are not.
func TestEdgeLoaderExcludeMerge(t *testing.T) {
	t.Parallel()
	g := uniformGraph(t, 300, 3000)
	ordered, _, err := g.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	always := []int64{5, 17, 17, 2999, 1000}
	for name, g := range map[string]*graph.Graph{"random": g, "ordered": ordered} {
		m, err := sampling.NewMultiLayer(g, []int{-1}, sampling.Options{Exclude: always})
		if err != nil {
			t.Fatal(err)
		}
		seeds := []int64{3, 1000, 44, 5, 2000, 2998}
		l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{BatchSize: 3, Exclude: sampling.ExcludeSelf})
		if err != nil {
			t.Fatal(err)
		}
		csc := g.CSC()
		for eb, err := range l.Epoch(0) {
			if err != nil {
				t.Fatal(err)
			}
			excluded := map[int64]bool{}
			for _, e := range slices.Concat(always, eb.EdgeIDs) {
				excluded[e] = true
			}
			b := eb.Blocks[0]
			var want []int64
			for _, v := range b.DstNodes() {
				lo, hi := csc.Row(int(v))
				for p := lo; p < hi; p++ {
					if e := int64(csc.EIDs[p]); !excluded[e] {
						want = append(want, e)
					}
				}
			}
			if !slices.Equal(b.EdgeIDs, want) {
				t.Errorf("%s: block edges %v, want %v", name, b.EdgeIDs, want)
			}
		}
		// The sampler itself still excludes only its own edges.
		mb, err := m.Sample([]int32{0, 1, 2}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mb.NumEdges(), countEdges(g, []int32{0, 1, 2}, always); got != want {
			t.Errorf("%s: sampler's own sample has %d edges, want %d", name, got, want)
		}
	}
}

// countEdges returns the number of in-edges of nodes not in excluded.
func countEdges(g *graph.Graph, nodes []int32, excluded []int64) int {
	csc := g.CSC()
	n := 0
	for _, v := range nodes {
		lo, hi := csc.Row(int(v))
		for p := lo; p < hi; p++ {
			if !slices.Contains(excluded, int64(csc.EIDs[p])) {
				n++
			}
		}
	}
	return n
}

// TestEdgeLoaderEarlyStop checks that leaving the loop, or an error in a
// middle batch, stops the prefetching goroutines, and that the batches
// before the error come in order.
func TestEdgeLoaderEarlyStop(t *testing.T) {
	g := uniformGraph(t, 1000, 8000)
	m, _ := sampling.NewMultiLayer(g, []int{4}, sampling.Options{})
	seeds := make([]int64, 500)
	for i := range seeds {
		seeds[i] = int64(i)
	}
	l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	// Fail at the first batch holding edge 75's endpoints.
	ps, pd := g.COO()
	bad := failAt{ps[75], pd[75]}
	wantBatches := 7
	for i := range 75 {
		if ps[i] == bad.src && pd[i] == bad.dst {
			wantBatches = i / 10
			break
		}
	}
	failing, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{BatchSize: 10, Negatives: bad})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for range 20 {
		for range l.Epoch(0) {
			break
		}
		n := 0
		for eb, err := range failing.Epoch(0) {
			if err != nil {
				if n != wantBatches {
					t.Fatalf("error after %d batches, want %d", n, wantBatches)
				}
				continue
			}
			if eb.EdgeIDs[0] != int64(10*n) {
				t.Fatalf("batch %d starts with edge %d", n, eb.EdgeIDs[0])
			}
			n++
		}
	}
	time.Sleep(10 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after 20 early stops, %d before", after, before)
	}
}

// failAt fails for batches holding the positive pair (src, dst) and
// returns no negatives otherwise.
type failAt struct{ src, dst int32 }

func (f failAt) Negatives(src, dst []int32, seed uint64) ([]int32, []int32, error) {
	for i := range src {
		if src[i] == f.src && dst[i] == f.dst {
			return nil, nil, errors.New("failAt")
		}
	}
	return []int32{}, []int32{}, nil
}
