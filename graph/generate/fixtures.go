package generate

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
)

// The fixtures below are small deterministic graphs for tests and examples.
// Their sizes are meant to be literals, so, like make, they panic on a
// negative size or one too large for graph.MaxNodes instead of returning an
// error. Their edges are listed in increasing (source, destination) order,
// which is also their edge-ID order.

// Empty returns a graph with n nodes and no edges.
func Empty(n int) *graph.Graph {
	mustNodes("Empty", n)
	return build(n, n, nil, nil)
}

// Path returns the directed path 0 -> 1 -> ... -> n-1: edge i joins node i
// to node i+1. Node 0 has no in-edges and node n-1 no out-edges.
func Path(n int) *graph.Graph {
	return ruled("Path", n, n-1, func(i int) (int, int) { return i, i + 1 })
}

// Cycle returns the directed cycle 0 -> 1 -> ... -> n-1 -> 0: edge i joins
// node i to node (i+1) mod n, so every node has one in-edge and one out-edge.
// Cycle(1) is a single self-loop.
func Cycle(n int) *graph.Graph {
	return ruled("Cycle", n, n, func(i int) (int, int) { return i, (i + 1) % n })
}

// Star returns the directed star on n nodes: edge i-1 joins the centre, node
// 0, to leaf i for i in [1, n). Every leaf has in-degree 1 and the centre has
// in-degree 0; Star(n).Reverse() points the leaves at the centre instead,
// giving one destination with n-1 in-edges.
func Star(n int) *graph.Graph {
	return ruled("Star", n, n-1, func(i int) (int, int) { return 0, i + 1 })
}

// ruled returns the fixture name on n nodes with max(m, 0) edges, edge i
// joining the nodes edge(i).
func ruled(name string, n, m int, edge func(i int) (src, dst int)) *graph.Graph {
	mustNodes(name, n)
	m = max(m, 0)
	src, dst := make([]int32, m), make([]int32, m)
	for i := range m {
		s, d := edge(i)
		src[i], dst[i] = int32(s), int32(d)
	}
	return build(n, n, src, dst)
}

// Complete returns the complete directed graph on n nodes: an edge u -> v
// for every ordered pair u != v, n*(n-1) edges, without self-loops.
func Complete(n int) *graph.Graph {
	mustNodes("Complete", n)
	m := n * max(n-1, 0)
	src, dst := make([]int32, 0, m), make([]int32, 0, m)
	for u := range n {
		for v := range n {
			if u != v {
				src, dst = append(src, int32(u)), append(dst, int32(v))
			}
		}
	}
	return build(n, n, src, dst)
}

// CompleteBipartite returns the bipartite graph with numSrc source and
// numDst destination nodes and an edge from every source to every
// destination: edge u*numDst + v joins source u to destination v. It is the
// fixture for graphs and message-flow blocks with NumSrc != NumDst.
func CompleteBipartite(numSrc, numDst int) *graph.Graph {
	mustNodes("CompleteBipartite", numSrc)
	mustNodes("CompleteBipartite", numDst)
	m := numSrc * numDst
	src, dst := make([]int32, 0, m), make([]int32, 0, m)
	for u := range numSrc {
		for v := range numDst {
			src, dst = append(src, int32(u)), append(dst, int32(v))
		}
	}
	return build(numSrc, numDst, src, dst)
}

// Grid returns the rows x cols grid with 4-neighbour edges in both
// directions. Node r*cols + c sits in row r and column c; it has an edge to
// each of its up, left, right and down neighbours that exist, so interior
// nodes have in- and out-degree 4, and the graph has
// 2*(rows*(cols-1) + cols*(rows-1)) edges.
func Grid(rows, cols int) *graph.Graph {
	mustNodes("Grid", rows)
	mustNodes("Grid", cols)
	if cols > 0 && rows > graph.MaxNodes/cols {
		panic(fmt.Sprintf("generate: Grid: %d x %d nodes exceed %d", rows, cols, graph.MaxNodes))
	}
	n := rows * cols
	var src, dst []int32
	add := func(u, v int) { src, dst = append(src, int32(u)), append(dst, int32(v)) }
	for r := range rows {
		for c := range cols {
			u := r*cols + c
			if r > 0 {
				add(u, u-cols)
			}
			if c > 0 {
				add(u, u-1)
			}
			if c+1 < cols {
				add(u, u+1)
			}
			if r+1 < rows {
				add(u, u+cols)
			}
		}
	}
	return build(n, n, src, dst)
}

// SelfLoops returns the graph on n nodes whose only edges are the n
// self-loops: edge i joins node i to itself. Summing messages over it copies
// every node's features, which makes it the identity fixture.
func SelfLoops(n int) *graph.Graph {
	mustNodes("SelfLoops", n)
	src, dst := make([]int32, n), make([]int32, n)
	for i := range n {
		src[i], dst[i] = int32(i), int32(i)
	}
	return build(n, n, src, dst)
}

// ParallelEdges returns Path(n) with every edge repeated k times: edges
// i*k to i*k+k-1 all join node i to node i+1. Summing messages over it gives
// k times the sum over Path(n). It panics if k is negative.
func ParallelEdges(n, k int) *graph.Graph {
	mustNodes("ParallelEdges", n)
	if k < 0 {
		panic(fmt.Sprintf("generate: ParallelEdges with negative multiplicity %d", k))
	}
	m := max(n-1, 0) * k
	src, dst := make([]int32, 0, m), make([]int32, 0, m)
	for i := range max(n-1, 0) {
		for range k {
			src, dst = append(src, int32(i)), append(dst, int32(i+1))
		}
	}
	return build(n, n, src, dst)
}

// mustNodes panics when n is not a valid node count.
func mustNodes(fixture string, n int) {
	if n < 0 || n > graph.MaxNodes {
		panic(fmt.Sprintf("generate: %s: node count %d outside [0, %d]", fixture, n, graph.MaxNodes))
	}
}

// build wraps fixture edges, which are valid by construction.
func build(numSrc, numDst int, src, dst []int32) *graph.Graph {
	g, err := graph.FromCOO(numSrc, numDst, src, dst)
	if err != nil {
		panic("generate: fixture built an invalid graph: " + err.Error())
	}
	return g
}
