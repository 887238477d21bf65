package gradcheck

import (
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// Graph builds a graph from a COO edge list or fails the test.
func Graph(t testing.TB, numSrc, numDst int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(numSrc, numDst, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Fixtures returns the graphs ops and message passing are checked on: "homo",
// a homogeneous graph with a self-loop (1 -> 1), parallel edges (0 -> 2
// twice), skewed in-degrees (node 1 has five in-edges) and a node without
// in-edges (6), and "bipartite", with more sources than destinations and a
// destination without in-edges (3).
func Fixtures(t testing.TB) map[string]*graph.Graph {
	t.Helper()
	return map[string]*graph.Graph{
		"homo": Graph(t, 7, 7,
			[]int32{0, 1, 2, 3, 4, 5, 0, 0, 1, 3, 3, 2, 5, 4},
			[]int32{1, 1, 1, 1, 1, 0, 2, 2, 3, 3, 4, 5, 4, 0}),
		"bipartite": Graph(t, 5, 4,
			[]int32{0, 1, 2, 3, 4, 0, 4, 2},
			[]int32{0, 0, 1, 1, 2, 2, 0, 1}),
	}
}

// Rows returns the number of rows of an operand of g at target at: source
// nodes, destination nodes or edges.
func Rows(g *graph.Graph, at ops.Target) int {
	switch at {
	case ops.U:
		return g.NumSrc()
	case ops.V:
		return g.NumDst()
	}
	return g.NumEdges()
}
