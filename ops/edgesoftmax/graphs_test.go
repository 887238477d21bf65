package edgesoftmax

import (
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// fixture is a named test graph.
type fixture struct {
	name string
	g    *graph.Graph
}

// fixtures returns the test graphs: no nodes, nodes but no edges, a small
// hand-written graph with a self-loop, parallel edges and a node without
// in-edges, a bipartite graph, and a random graph with extra self-loops and
// parallel edges.
func fixtures(t testing.TB) []fixture {
	rng := rand.New(rand.NewPCG(1, 1))
	return []fixture{
		{"no-nodes", mustGraph(t, 0, 0, nil, nil)},
		{"no-edges", mustGraph(t, 4, 3, nil, nil)},
		{"small", mustGraph(t, 5, 5,
			[]int32{0, 0, 1, 2, 2, 3, 3, 4},
			[]int32{1, 1, 2, 2, 0, 1, 4, 1})},
		{"bipartite", randomGraph(t, rng, 7, 4, 40)},
		{"random", randomGraph(t, rng, 30, 30, 300)},
	}
}

// randomGraph draws ne uniform edges, then appends a self-loop on every
// shared node ID and a copy of the first edges, so loops and parallel edges
// are always present.
func randomGraph(t testing.TB, rng *rand.Rand, ns, nd, ne int) *graph.Graph {
	var src, dst []int32
	for range ne {
		src = append(src, int32(rng.IntN(ns)))
		dst = append(dst, int32(rng.IntN(nd)))
	}
	for v := range min(ns, nd) {
		src, dst = append(src, int32(v)), append(dst, int32(v))
	}
	dup := min(ne, 5)
	src, dst = append(src, src[:dup]...), append(dst, dst[:dup]...)
	return mustGraph(t, ns, nd, src, dst)
}

func mustGraph(t testing.TB, ns, nd int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(ns, nd, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
