package graph

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// randomCOO returns e edges with endpoints drawn uniformly from [0, numSrc)
// and [0, numDst); small node counts give self-loops and parallel edges.
func randomCOO(r *rand.Rand, numSrc, numDst, e int) (src, dst []int32) {
	src = make([]int32, e)
	dst = make([]int32, e)
	for i := range e {
		src[i] = int32(r.IntN(numSrc))
		dst[i] = int32(r.IntN(numDst))
	}
	return src, dst
}

func mustFromCOO(t testing.TB, numSrc, numDst int, src, dst []int32) *Graph {
	t.Helper()
	g, err := FromCOO(numSrc, numDst, src, dst)
	if err != nil {
		t.Fatalf("FromCOO(%d, %d, ...): %v", numSrc, numDst, err)
	}
	return g
}

// fixture is a named graph used by several tests.
type fixture struct {
	name           string
	numSrc, numDst int
	src, dst       []int32
}

// fixtures returns the edge cases every test walks: empty, edgeless,
// bipartite both ways, self-loops, parallel edges and random graphs.
func fixtures() []fixture {
	r := rand.New(rand.NewPCG(1, 1))
	rnd := func(name string, numSrc, numDst, e int) fixture {
		src, dst := randomCOO(r, numSrc, numDst, e)
		return fixture{name, numSrc, numDst, src, dst}
	}
	return []fixture{
		{"empty", 0, 0, nil, nil},
		{"no-edges", 5, 5, []int32{}, []int32{}},
		{"no-edges-bipartite", 2, 6, nil, nil},
		{"self-loops", 3, 3, []int32{0, 1, 2, 1}, []int32{0, 1, 2, 1}},
		{"parallel", 3, 3, []int32{0, 2, 0, 0, 2}, []int32{1, 1, 1, 1, 1}},
		{"path", 4, 4, []int32{0, 1, 2}, []int32{1, 2, 3}},
		rnd("bipartite-3x7", 3, 7, 40),
		rnd("bipartite-7x3", 7, 3, 40),
		rnd("dense-small", 4, 4, 50),
		rnd("random", 100, 100, 700),
		rnd("sparse", 1000, 1000, 300),
	}
}

func (f fixture) graph(t testing.TB) *Graph {
	return mustFromCOO(t, f.numSrc, f.numDst, slices.Clone(f.src), slices.Clone(f.dst))
}

func TestFromCOOErrors(t *testing.T) {
	for _, c := range []struct {
		name           string
		numSrc, numDst int
		src, dst       []int32
		want           string
	}{
		{"negative-src", -1, 3, nil, nil, "negative node count"},
		{"negative-dst", 3, -2, nil, nil, "negative node count"},
		{"too-many", MaxNodes + 1, 3, nil, nil, "exceeds"},
		{"lengths", 3, 3, []int32{0, 1}, []int32{0}, "2 source IDs but 1 destination IDs"},
		{"src-high", 3, 3, []int32{0, 3}, []int32{0, 1}, "edge 1 has src 3 but the graph has 3 source nodes"},
		{"src-negative", 3, 3, []int32{-1}, []int32{0}, "edge 0 has src -1"},
		{"dst-negative", 3, 3, []int32{0, 0, 0}, []int32{0, 2, -5}, "edge 2 has dst -5"},
		{"dst-bipartite", 5, 2, []int32{4}, []int32{2}, "edge 0 has dst 2 but the graph has 2 destination nodes"},
		{"no-nodes", 0, 0, []int32{0}, []int32{0}, "edge 0 has src 0"},
	} {
		g, err := FromCOO(c.numSrc, c.numDst, c.src, c.dst)
		if err == nil || g != nil {
			t.Errorf("%s: got (%v, %v), want an error", c.name, g, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "graph: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %q, want it to contain %q", c.name, err, c.want)
		}
	}

	src := make([]int32, 20)
	dst := make([]int32, 20)
	dst[17] = 9
	_, err := FromCOO(8, 8, src, dst)
	const want = "graph: edge 17 has dst 9 but the graph has 8 destination nodes"
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}

func TestFromCOOSizes(t *testing.T) {
	for _, f := range fixtures() {
		g := f.graph(t)
		if g.NumSrc() != f.numSrc || g.NumDst() != f.numDst || g.NumEdges() != len(f.src) {
			t.Errorf("%s: got sizes (%d, %d, %d), want (%d, %d, %d)", f.name,
				g.NumSrc(), g.NumDst(), g.NumEdges(), f.numSrc, f.numDst, len(f.src))
		}
		if got, want := g.NumNodes(), max(f.numSrc, f.numDst); got != want {
			t.Errorf("%s: got NumNodes %d, want %d", f.name, got, want)
		}
		if got, want := g.Homogeneous(), f.numSrc == f.numDst; got != want {
			t.Errorf("%s: got Homogeneous %v, want %v", f.name, got, want)
		}
		src, dst := g.COO()
		if src == nil || dst == nil || !slices.Equal(src, f.src) || !slices.Equal(dst, f.dst) {
			t.Errorf("%s: got COO (%v, %v), want (%v, %v), non-nil", f.name, src, dst, f.src, f.dst)
		}
		if !strings.Contains(g.String(), "edges=") {
			t.Errorf("%s: got String %q", f.name, g.String())
		}
	}

}

// TestFromCOOCopies changes the slices given to FromCOO, before and after
// the views are built, to IDs far out of range: the graph and its views
// must not see it (kernels index node rows by these IDs, in assembly).
func TestFromCOOCopies(t *testing.T) {
	for _, early := range []bool{false, true} {
		src, dst := []int32{0, 1, 2}, []int32{1, 2, 0}
		g := mustFromCOO(t, 3, 3, src, dst)
		if early {
			g.CSR()
			g.CSC()
		}
		for i := range src {
			src[i], dst[i] = 1<<30, -1<<30
		}
		s, d := g.COO()
		if !slices.Equal(s, []int32{0, 1, 2}) || !slices.Equal(d, []int32{1, 2, 0}) {
			t.Errorf("views built early %v: COO is (%v, %v) after the caller's slices changed", early, s, d)
		}
		for _, c := range []*Compressed{g.CSR(), g.CSC()} {
			for _, v := range c.Indices {
				if v < 0 || v >= 3 {
					t.Errorf("views built early %v: a view holds node %d of 3", early, v)
				}
			}
		}
	}
}

func TestIDsUnique(t *testing.T) {
	const workers, per = 8, 50
	ids := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				g, _ := FromCOO(1, 1, []int32{0}, []int32{0})
				ids[w] = append(ids[w], g.ID(), g.Reverse().ID())
			}
		}()
	}
	wg.Wait()
	seen := make(map[uint64]bool)
	for _, l := range ids {
		for _, id := range l {
			if seen[id] {
				t.Fatalf("ID %d given twice", id)
			}
			seen[id] = true
		}
	}
}

func TestReverse(t *testing.T) {
	for _, f := range fixtures() {
		for _, early := range []bool{false, true} {
			g := f.graph(t)
			if early { // views built before reversing
				g.CSR()
				g.CSC()
			}
			rg := g.Reverse()
			if rg.ID() == g.ID() {
				t.Errorf("%s: reverse has the same ID %d", f.name, g.ID())
			}
			if rg.Reverse() != g || g.Reverse() != rg {
				t.Errorf("%s: Reverse().Reverse() is not the graph", f.name)
			}
			if rg.NumSrc() != g.NumDst() || rg.NumDst() != g.NumSrc() || rg.NumEdges() != g.NumEdges() {
				t.Errorf("%s: reverse sizes (%d, %d, %d)", f.name, rg.NumSrc(), rg.NumDst(), rg.NumEdges())
			}
			s, d := g.COO()
			rs, rd := rg.COO()
			if !slices.Equal(rs, d) || !slices.Equal(rd, s) {
				t.Errorf("%s: reverse COO (%v, %v), want (%v, %v)", f.name, rs, rd, d, s)
			}
			if rg.CSR() != g.CSC() || rg.CSC() != g.CSR() {
				t.Errorf("%s: reverse does not share the views", f.name)
			}
			if got, want := rg.InDegrees(), g.OutDegrees(); !slices.Equal(got, want) {
				t.Errorf("%s: reverse in-degrees %v, want %v", f.name, got, want)
			}
		}
	}
}

func TestDegrees(t *testing.T) {
	for _, f := range fixtures() {
		g := f.graph(t)
		in := make([]int64, f.numDst)
		out := make([]int64, f.numSrc)
		for e := range f.src {
			out[f.src[e]]++
			in[f.dst[e]]++
		}
		if got := g.InDegrees(); !slices.Equal(got, in) {
			t.Errorf("%s: got InDegrees %v, want %v", f.name, got, in)
		}
		if got := g.OutDegrees(); !slices.Equal(got, out) {
			t.Errorf("%s: got OutDegrees %v, want %v", f.name, got, out)
		}
		var zero []int32
		for v, d := range in {
			if got := g.InDegree(v); got != int(d) {
				t.Errorf("%s: got InDegree(%d) %d, want %d", f.name, v, got, d)
			}
			if d == 0 {
				zero = append(zero, int32(v))
			}
		}
		for u, d := range out {
			if got := g.OutDegree(u); got != int(d) {
				t.Errorf("%s: got OutDegree(%d) %d, want %d", f.name, u, got, d)
			}
		}
		if got := g.ZeroInDegree(); !slices.Equal(got, zero) {
			t.Errorf("%s: got ZeroInDegree %v, want %v", f.name, got, zero)
		}
		for _, bad := range []int{-1, f.numSrc, f.numDst} {
			if !g.HasSrcNode(bad) && g.OutDegree(bad) != 0 {
				t.Errorf("%s: OutDegree(%d) = %d, want 0", f.name, bad, g.OutDegree(bad))
			}
			if !g.HasDstNode(bad) && g.InDegree(bad) != 0 {
				t.Errorf("%s: InDegree(%d) = %d, want 0", f.name, bad, g.InDegree(bad))
			}
		}
	}
}

func TestQueries(t *testing.T) {
	for _, f := range fixtures() {
		for _, rev := range []bool{false, true} {
			g := f.graph(t)
			if rev {
				g = g.Reverse()
			}
			name := f.name
			if rev {
				name += "/reverse"
			}
			src, dst := g.COO()
			succ := make([][]int32, g.NumSrc())
			outE := make([][]int64, g.NumSrc())
			pred := make([][]int32, g.NumDst())
			inE := make([][]int64, g.NumDst())
			between := make(map[[2]int32][]int64)
			for e := range src {
				u, v := src[e], dst[e]
				succ[u] = append(succ[u], v)
				outE[u] = append(outE[u], int64(e))
				pred[v] = append(pred[v], u)
				inE[v] = append(inE[v], int64(e))
				between[[2]int32{u, v}] = append(between[[2]int32{u, v}], int64(e))
			}
			for u := range g.NumSrc() {
				s, err1 := g.Successors(u)
				o, err2 := g.OutEdges(u)
				if err1 != nil || err2 != nil || !slices.Equal(s, succ[u]) || !slices.Equal(o, outE[u]) || cap(s) != len(s) {
					t.Errorf("%s: node %d: got successors %v, out-edges %v (%v, %v), want %v, %v",
						name, u, s, o, err1, err2, succ[u], outE[u])
				}
			}
			for v := range g.NumDst() {
				p, err1 := g.Predecessors(v)
				i, err2 := g.InEdges(v)
				if err1 != nil || err2 != nil || !slices.Equal(p, pred[v]) || !slices.Equal(i, inE[v]) {
					t.Errorf("%s: node %d: got predecessors %v, in-edges %v (%v, %v), want %v, %v",
						name, v, p, i, err1, err2, pred[v], inE[v])
				}
			}
			for u := range g.NumSrc() {
				for v := range g.NumDst() {
					want := between[[2]int32{int32(u), int32(v)}]
					got, err := g.EdgesBetween(u, v)
					has, err2 := g.HasEdgeBetween(u, v)
					if err != nil || err2 != nil || got == nil || !slices.Equal(got, want) || has != (len(want) > 0) {
						t.Errorf("%s: (%d, %d): got %v %v (%v, %v), want %v", name, u, v, got, has, err, err2, want)
					}
				}
			}
			eids := []int64{}
			for e := g.NumEdges() - 1; e >= 0; e -= 2 {
				eids = append(eids, int64(e))
			}
			fs, fd, err := g.FindEdges(eids)
			for i, e := range eids {
				if err != nil || fs[i] != src[e] || fd[i] != dst[e] {
					t.Errorf("%s: FindEdges: edge %d: got %d -> %d (%v), want %d -> %d", name, e, fs[i], fd[i], err, src[e], dst[e])
				}
			}
		}
	}
}

func TestQueryErrors(t *testing.T) {
	g := mustFromCOO(t, 3, 2, []int32{0, 2}, []int32{1, 1})
	calls := map[string]func() error{
		"Successors(3)":         func() error { _, err := g.Successors(3); return err },
		"Successors(-1)":        func() error { _, err := g.Successors(-1); return err },
		"OutEdges(3)":           func() error { _, err := g.OutEdges(3); return err },
		"Predecessors(2)":       func() error { _, err := g.Predecessors(2); return err },
		"InEdges(-1)":           func() error { _, err := g.InEdges(-1); return err },
		"HasEdgeBetween(3, 0)":  func() error { _, err := g.HasEdgeBetween(3, 0); return err },
		"HasEdgeBetween(0, 2)":  func() error { _, err := g.HasEdgeBetween(0, 2); return err },
		"EdgesBetween(-1, 0)":   func() error { _, err := g.EdgesBetween(-1, 0); return err },
		"EdgesBetween(0, 5)":    func() error { _, err := g.EdgesBetween(0, 5); return err },
		"FindEdges([0 2])":      func() error { _, _, err := g.FindEdges([]int64{0, 2}); return err },
		"FindEdges([-1])":       func() error { _, _, err := g.FindEdges([]int64{-1}); return err },
		"Reverse.Successors(2)": func() error { _, err := g.Reverse().Successors(2); return err },
	}
	for name, call := range calls {
		if err := call(); err == nil || !strings.HasPrefix(err.Error(), "graph: ") {
			t.Errorf("%s: got error %v, want a graph: error", name, err)
		}
	}
	_, _, err := g.FindEdges([]int64{1, 0, 7})
	if want := "graph: eids[2] = 7 but the graph has 2 edges"; err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
	_, err = g.Predecessors(2)
	if want := "graph: destination node 2 out of range [0, 2)"; err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
	if got, _ := g.Reverse().Successors(1); !reflect.DeepEqual(got, []int32{0, 2}) {
		t.Errorf("got reverse successors %v, want [0 2]", got)
	}
}
