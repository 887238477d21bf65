// Package testgraphs holds the small graphs the kernel packages test on:
// no nodes, nodes without edges, a hand-written graph with a self-loop,
// parallel edges and a node without in-edges, a bipartite graph, and a
// random graph with extra self-loops and parallel edges.
package testgraphs

import (
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// Fixture is a named test graph.
type Fixture struct {
	Name string
	G    *graph.Graph
}

// Fixtures returns the test graphs, the same ones on every call.
func Fixtures(t testing.TB) []Fixture {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	return []Fixture{
		{"no-nodes", Must(t, 0, 0, nil, nil)},
		{"no-edges", Must(t, 4, 3, nil, nil)},
		{"small", Must(t, 5, 5,
			[]int32{0, 0, 1, 2, 2, 3, 3, 4},
			[]int32{1, 1, 2, 2, 0, 1, 4, 1})},
		{"bipartite", Random(t, rng, 7, 4, 40)},
		{"random", Random(t, rng, 30, 30, 300)},
	}
}

// Random draws ne uniform edges, then appends a self-loop on every shared
// node ID and a copy of the first edges, so loops and parallel edges are
// always present.
func Random(t testing.TB, rng *rand.Rand, ns, nd, ne int) *graph.Graph {
	t.Helper()
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
	return Must(t, ns, nd, src, dst)
}

// Must builds a graph or fails the test.
func Must(t testing.TB, ns, nd int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(ns, nd, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
