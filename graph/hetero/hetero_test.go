package hetero

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
)

func mustCOO(t *testing.T, ns, nd int, s, d []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(ns, nd, s, d)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// small is a DGL-guide-like heterograph: users follow users, users play games.
func small(t *testing.T) *Graph {
	t.Helper()
	h, err := New(map[string]int{"user": 3, "game": 2}, map[EdgeType]*graph.Graph{
		{"user", "plays", "game"}:   mustCOO(t, 3, 2, []int32{0, 2, 1}, []int32{1, 0, 1}),
		{"user", "follows", "user"}: mustCOO(t, 3, 3, []int32{0, 1}, []int32{1, 2}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// randomHetero has node types a, b, c and relations between them,
// including one within a type and two relations with the same name.
func randomHetero(t *testing.T, rng *rand.Rand) *Graph {
	t.Helper()
	counts := map[string]int{"a": 1 + rng.IntN(6), "b": rng.IntN(5), "c": 1 + rng.IntN(4)}
	rel := func(s, d string) *graph.Graph {
		m := rng.IntN(12)
		if counts[s] == 0 || counts[d] == 0 {
			m = 0
		}
		src, dst := make([]int32, m), make([]int32, m)
		for e := range m {
			src[e], dst[e] = int32(rng.IntN(counts[s])), int32(rng.IntN(counts[d]))
		}
		return mustCOO(t, counts[s], counts[d], src, dst)
	}
	h, err := New(counts, map[EdgeType]*graph.Graph{
		{"c", "r", "a"}: rel("c", "a"),
		{"a", "r", "b"}: rel("a", "b"),
		{"a", "s", "a"}: rel("a", "a"),
		{"b", "t", "c"}: rel("b", "c"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestNewSortsTypes(t *testing.T) {
	h := small(t)
	if got := h.NodeTypes(); !slices.Equal(got, []string{"game", "user"}) {
		t.Errorf("NodeTypes = %v", got)
	}
	want := []EdgeType{{"user", "follows", "user"}, {"user", "plays", "game"}}
	if got := h.EdgeTypes(); !slices.Equal(got, want) {
		t.Errorf("EdgeTypes = %v, want %v", got, want)
	}
	if s, d := h.Endpoints(1); s != 1 || d != 0 {
		t.Errorf("Endpoints(1) = %d, %d, want 1, 0", s, d)
	}
	if n, err := h.NumNodes("user"); err != nil || n != 3 {
		t.Errorf("NumNodes(user) = %d, %v", n, err)
	}
	if h.TotalNodes() != 5 || h.TotalEdges() != 5 {
		t.Errorf("totals %d nodes %d edges, want 5 and 5", h.TotalNodes(), h.TotalEdges())
	}
	if et, err := h.CanonicalEdgeType("plays"); err != nil || et != want[1] {
		t.Errorf("CanonicalEdgeType(plays) = %v, %v", et, err)
	}
	g, err := h.Relation(want[1])
	if err != nil || g.NumSrc() != 3 || g.NumDst() != 2 || g.NumEdges() != 3 {
		t.Errorf("Relation(plays) = %v, %v", g, err)
	}
	if !strings.Contains(h.String(), "(user, plays, game)=3") {
		t.Errorf("String = %s", h.String())
	}
}

func TestErrors(t *testing.T) {
	g32 := mustCOO(t, 3, 2, nil, nil)
	g33 := mustCOO(t, 3, 3, nil, nil)
	cases := []struct {
		name  string
		nodes map[string]int
		rels  map[EdgeType]*graph.Graph
		want  string
	}{
		{"empty name", map[string]int{"": 1}, nil, "empty node type"},
		{"space", map[string]int{"a b": 1}, nil, `"a b" has a space`},
		{"negative", map[string]int{"a": -1}, nil, `"a" has -1 nodes`},
		{"nil graph", map[string]int{"a": 3}, map[EdgeType]*graph.Graph{{"a", "r", "a"}: nil}, "(a, r, a) has a nil graph"},
		{"unknown src", map[string]int{"a": 3}, map[EdgeType]*graph.Graph{{"x", "r", "a"}: g33}, `source type "x"`},
		{"unknown dst", map[string]int{"a": 3}, map[EdgeType]*graph.Graph{{"a", "r", "y"}: g33}, `destination type "y"`},
		{"sizes", map[string]int{"a": 3, "b": 3}, map[EdgeType]*graph.Graph{{"a", "r", "b"}: g32}, `"b" 3`},
		{"relation name", map[string]int{"a": 3}, map[EdgeType]*graph.Graph{{"a", "", "a"}: g33}, "empty relation"},
	}
	for _, c := range cases {
		_, err := New(c.nodes, c.rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	h := small(t)
	if _, err := h.NumNodes("item"); err == nil || !strings.Contains(err.Error(), "have game, user") {
		t.Errorf("NumNodes(item): %v", err)
	}
	if _, err := h.Relation(EdgeType{"game", "plays", "user"}); err == nil {
		t.Error("Relation of a missing type: no error")
	}
	if _, err := h.CanonicalEdgeType("likes"); err == nil {
		t.Error("CanonicalEdgeType(likes): no error")
	}
	rh := randomHetero(t, rand.New(rand.NewPCG(1, 2)))
	if _, err := rh.CanonicalEdgeType("r"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("CanonicalEdgeType(r): %v", err)
	}
}

func TestToHomogeneous(t *testing.T) {
	hom, err := small(t).ToHomogeneous()
	if err != nil {
		t.Fatal(err)
	}
	// game nodes 0-1 become 0-1, user nodes 0-2 become 2-4; follows edges
	// come first, then plays.
	s, d := hom.Graph.COO()
	wantS := []int32{2, 3, 2, 4, 3}
	wantD := []int32{3, 4, 1, 0, 1}
	if !slices.Equal(s, wantS) || !slices.Equal(d, wantD) {
		t.Errorf("COO = %v %v, want %v %v", s, d, wantS, wantD)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if !equalAny(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("NodeType", hom.NodeType, []int32{0, 0, 1, 1, 1})
	check("NodeID", hom.NodeID, []int32{0, 1, 0, 1, 2})
	check("EdgeType", hom.EdgeType, []int32{0, 0, 1, 1, 1})
	check("EdgeID", hom.EdgeID, []int64{0, 1, 0, 1, 2})
	check("NodeOffsets", hom.NodeOffsets, []int{0, 2, 5})
	check("EdgeOffsets", hom.EdgeOffsets, []int{0, 2, 5})
}

func equalAny(a, b any) bool {
	switch a := a.(type) {
	case []int32:
		return slices.Equal(a, b.([]int32))
	case []int64:
		return slices.Equal(a, b.([]int64))
	case []int:
		return slices.Equal(a, b.([]int))
	}
	return false
}

func sameGraph(t *testing.T, what string, a, b *Graph) {
	t.Helper()
	if !slices.Equal(a.NodeTypes(), b.NodeTypes()) || !slices.Equal(a.EdgeTypes(), b.EdgeTypes()) {
		t.Fatalf("%s: types %v %v vs %v %v", what, a.NodeTypes(), a.EdgeTypes(), b.NodeTypes(), b.EdgeTypes())
	}
	for i := range a.NumNodeTypes() {
		if a.NodeCount(i) != b.NodeCount(i) {
			t.Errorf("%s: node type %d has %d vs %d nodes", what, i, a.NodeCount(i), b.NodeCount(i))
		}
	}
	for j := range a.NumEdgeTypes() {
		as, ad := a.RelationAt(j).COO()
		bs, bd := b.RelationAt(j).COO()
		if !slices.Equal(as, bs) || !slices.Equal(ad, bd) {
			t.Errorf("%s: relation %v differs: %v %v vs %v %v", what, a.EdgeTypes()[j], as, ad, bs, bd)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		h := randomHetero(t, rng)
		hom, err := h.ToHomogeneous()
		if err != nil {
			t.Fatal(err)
		}
		// Give the types in reverse order: the result is sorted anyway.
		ntypes, etypes := h.NodeTypes(), h.EdgeTypes()
		slices.Reverse(ntypes)
		slices.Reverse(etypes)
		nt := make([]int32, len(hom.NodeType))
		for v, x := range hom.NodeType {
			nt[v] = int32(len(ntypes)) - 1 - x
		}
		et := make([]int32, len(hom.EdgeType))
		for e, x := range hom.EdgeType {
			et[e] = int32(len(etypes)) - 1 - x
		}
		sp, err := ToHeterogeneous(hom.Graph, nt, et, ntypes, etypes)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, "round trip", h, sp.Graph)
		for i, ids := range sp.NodeIDs {
			for v, hv := range ids {
				if int(hv) != hom.NodeOffsets[i]+v || hom.NodeID[hv] != int32(v) {
					t.Fatalf("NodeIDs[%d][%d] = %d, offsets %v", i, v, hv, hom.NodeOffsets)
				}
			}
		}
		for j, ids := range sp.EdgeIDs {
			for e, he := range ids {
				if int(he) != hom.EdgeOffsets[j]+e || hom.EdgeID[he] != int64(e) {
					t.Fatalf("EdgeIDs[%d][%d] = %d, offsets %v", j, e, he, hom.EdgeOffsets)
				}
			}
		}
	}
}

// TestToHeterogeneousInterleaved splits a graph whose types interleave:
// per-type IDs follow increasing homogeneous IDs.
func TestToHeterogeneousInterleaved(t *testing.T) {
	g := mustCOO(t, 5, 5, []int32{0, 4, 1, 2}, []int32{1, 3, 3, 1})
	nt := []int32{1, 0, 1, 0, 1} // x: 1, 3; y: 0, 2, 4
	et := []int32{0, 0, 1, 0}
	etypes := []EdgeType{{"y", "to", "x"}, {"x", "back", "x"}}
	sp, err := ToHeterogeneous(g, nt, et, []string{"x", "y"}, etypes)
	if err != nil {
		t.Fatal(err)
	}
	h := sp.Graph
	want, err := New(map[string]int{"x": 2, "y": 3}, map[EdgeType]*graph.Graph{
		{"y", "to", "x"}:   mustCOO(t, 3, 2, []int32{0, 2, 1}, []int32{0, 1, 0}),
		{"x", "back", "x"}: mustCOO(t, 2, 2, []int32{0}, []int32{1}),
	})
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, "interleaved", want, h)
	if !slices.Equal(sp.NodeIDs[1], []int32{0, 2, 4}) || !slices.Equal(sp.EdgeIDs[1], []int64{0, 1, 3}) || !slices.Equal(sp.EdgeIDs[0], []int64{2}) {
		t.Errorf("NodeIDs %v EdgeIDs %v", sp.NodeIDs, sp.EdgeIDs)
	}

	bad := []struct {
		name   string
		nt, et []int32
		nts    []string
		ets    []EdgeType
		want   string
	}{
		{"node types length", nt[:4], et, []string{"x", "y"}, etypes, "4 node types for 5 nodes"},
		{"edge types length", nt, et[:3], []string{"x", "y"}, etypes, "3 edge types for 4 edges"},
		{"node type range", []int32{1, 0, 2, 0, 1}, et, []string{"x", "y"}, etypes, "node 2 has type 2"},
		{"edge type range", nt, []int32{0, 0, 1, -1}, []string{"x", "y"}, etypes, "edge 3 has type -1"},
		{"wrong endpoint", nt, []int32{0, 0, 0, 0}, []string{"x", "y"}, etypes, "edge 2 (1 -> 3) has type (y, to, x) but joins nodes of types \"x\" and \"x\""},
		{"duplicate ntype", nt, et, []string{"x", "x"}, etypes, `ntypes[1] = "x" repeats`},
		{"unknown ntype", nt, et, []string{"x", "y"}, []EdgeType{{"y", "to", "z"}, etypes[1]}, "not in ntypes"},
		{"duplicate etype", nt, et, []string{"x", "y"}, []EdgeType{etypes[0], etypes[0]}, "etypes[1] = (y, to, x) repeats"},
	}
	for _, c := range bad {
		_, err := ToHeterogeneous(g, c.nt, c.et, c.nts, c.ets)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := ToHeterogeneous(mustCOO(t, 2, 3, nil, nil), nil, nil, nil, nil); err == nil {
		t.Error("bipartite graph: no error")
	}
}

func TestRelationSubgraph(t *testing.T) {
	h := randomHetero(t, rand.New(rand.NewPCG(5, 6)))
	sub, err := h.RelationSubgraph(EdgeType{"b", "t", "c"}, EdgeType{"a", "s", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sub.NodeTypes(), []string{"a", "b", "c"}) || sub.NumEdgeTypes() != 2 {
		t.Fatalf("subgraph %v", sub)
	}
	for _, et := range sub.EdgeTypes() {
		a, _ := h.Relation(et)
		b, _ := sub.Relation(et)
		if a != b {
			t.Errorf("relation %v not shared", et)
		}
	}
	sub, err = h.RelationSubgraph(EdgeType{"a", "s", "a"})
	if err != nil || !slices.Equal(sub.NodeTypes(), []string{"a"}) {
		t.Errorf("one relation: %v, %v", sub, err)
	}
	if _, err := h.RelationSubgraph(EdgeType{"a", "s", "a"}, EdgeType{"a", "s", "a"}); err == nil || !strings.Contains(err.Error(), "types[1]") {
		t.Errorf("repeated type: %v", err)
	}
	if _, err := h.RelationSubgraph(EdgeType{"a", "q", "a"}); err == nil || !strings.Contains(err.Error(), "types[0]") {
		t.Errorf("missing type: %v", err)
	}
}

func TestAddReverse(t *testing.T) {
	h := small(t)
	r, err := h.AddReverse("rev-")
	if err != nil {
		t.Fatal(err)
	}
	want := []EdgeType{{"game", "rev-plays", "user"}, {"user", "follows", "user"}, {"user", "plays", "game"}, {"user", "rev-follows", "user"}}
	if !slices.Equal(r.EdgeTypes(), want) {
		t.Fatalf("EdgeTypes = %v", r.EdgeTypes())
	}
	fwd, _ := r.Relation(want[2])
	rev, _ := r.Relation(want[0])
	fs, fd := fwd.COO()
	rs, rd := rev.COO()
	if !slices.Equal(fs, rd) || !slices.Equal(fd, rs) {
		t.Errorf("reverse COO %v %v of %v %v", rs, rd, fs, fd)
	}
	if _, err := r.AddReverse("rev-"); err == nil || !strings.Contains(err.Error(), "(user, rev-follows, user), which the graph already has") {
		t.Errorf("second AddReverse: %v", err)
	}
	if _, err := h.AddReverse(""); err == nil {
		t.Error("empty prefix: no error")
	}
	clash, err := New(map[string]int{"a": 2}, map[EdgeType]*graph.Graph{
		{"a", "r", "a"}:  mustCOO(t, 2, 2, nil, nil),
		{"a", "~r", "a"}: mustCOO(t, 2, 2, nil, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clash.AddReverse("~"); err == nil || !strings.Contains(err.Error(), "already has") {
		t.Errorf("clashing reverse: %v", err)
	}
}

func TestMetapathReachable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		h := randomHetero(t, rng)
		path := []EdgeType{{"a", "r", "b"}, {"b", "t", "c"}, {"c", "r", "a"}, {"a", "s", "a"}}
		g, err := h.MetapathReachable(path)
		if err != nil {
			t.Fatal(err)
		}
		// Dense boolean product.
		reach := dense(t, h, path[0])
		for _, et := range path[1:] {
			reach = boolProduct(reach, dense(t, h, et))
		}
		var ws, wd []int32
		for u, row := range reach {
			for v, ok := range row {
				if ok {
					ws, wd = append(ws, int32(u)), append(wd, int32(v))
				}
			}
		}
		s, d := g.COO()
		if !slices.Equal(s, ws) || !slices.Equal(d, wd) || g.NumSrc() != len(reach) {
			t.Fatalf("metapath graph %v %v, want %v %v", s, d, ws, wd)
		}
	}
	h := small(t)
	if _, err := h.MetapathReachable(nil); err == nil {
		t.Error("empty path: no error")
	}
	if _, err := h.MetapathReachable([]EdgeType{{"user", "plays", "game"}, {"user", "follows", "user"}}); err == nil || !strings.Contains(err.Error(), "does not start") {
		t.Errorf("disconnected path: %v", err)
	}
}

func dense(t *testing.T, h *Graph, et EdgeType) [][]bool {
	g, err := h.Relation(et)
	if err != nil {
		t.Fatal(err)
	}
	m := make([][]bool, g.NumSrc())
	for i := range m {
		m[i] = make([]bool, g.NumDst())
	}
	s, d := g.COO()
	for e := range s {
		m[s[e]][d[e]] = true
	}
	return m
}

func boolProduct(a, b [][]bool) [][]bool {
	out := make([][]bool, len(a))
	for i := range a {
		out[i] = make([]bool, 0)
		if len(b) > 0 {
			out[i] = make([]bool, len(b[0]))
		}
		for k, ok := range a[i] {
			if ok {
				for j, ok2 := range b[k] {
					out[i][j] = out[i][j] || ok2
				}
			}
		}
	}
	return out
}
