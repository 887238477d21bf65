package spmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
)

// testGraph is a named graph fixture.
type testGraph struct {
	name string
	g    *graph.Graph
}

// mustGraph builds a graph from COO lists or fails the test.
func mustGraph(t testing.TB, numSrc, numDst int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(numSrc, numDst, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// testGraphs returns the edge cases every kernel is checked on: skewed
// degrees with a hub, self-loops, parallel edges, nodes without in-edges,
// no edges, no nodes, and a bipartite graph. Edge IDs are in random order
// with respect to destinations, so the CSC's edge-ID map matters.
func testGraphs(t testing.TB) []testGraph {
	r := rand.New(rand.NewPCG(1, 1))
	var gs []testGraph

	// Skewed: node v receives about 60/(v+1) edges, so node 0 is a hub,
	// and nodes 25..29 receive none. Sources are uniform, so self-loops
	// and parallel edges occur too.
	{
		const n = 30
		src, dst := kerneltest.Skewed(r, n, 25)
		kerneltest.Shuffle(r, src, dst)
		gs = append(gs, testGraph{"skewed", mustGraph(t, n, n, src, dst)})
	}
	// Self-loops on every node plus a path, and the same edge three times.
	{
		const n = 6
		var src, dst []int32
		for v := range n {
			src, dst = append(src, int32(v)), append(dst, int32(v))
		}
		for v := range n - 1 {
			src, dst = append(src, int32(v)), append(dst, int32(v+1))
		}
		src, dst = append(src, 2, 2, 2), append(dst, 4, 4, 4)
		kerneltest.Shuffle(r, src, dst)
		gs = append(gs, testGraph{"selfloop-multi", mustGraph(t, n, n, src, dst)})
	}
	// Uniform random edges on few nodes: many parallel edges.
	{
		const n, e = 8, 60
		src, dst := make([]int32, e), make([]int32, e)
		for i := range e {
			src[i], dst[i] = int32(r.IntN(n)), int32(r.IntN(n-2)) // last two: no in-edges
		}
		gs = append(gs, testGraph{"dense-multi", mustGraph(t, n, n, src, dst)})
	}
	// Bipartite, NumSrc != NumDst, with isolated destinations.
	{
		const ns, nd, e = 7, 11, 40
		src, dst := make([]int32, e), make([]int32, e)
		for i := range e {
			src[i], dst[i] = int32(r.IntN(ns)), int32(r.IntN(nd-3))
		}
		gs = append(gs, testGraph{"bipartite", mustGraph(t, ns, nd, src, dst)})
		gs = append(gs, testGraph{"bipartite-reverse", gs[len(gs)-1].g.Reverse()})
	}
	gs = append(gs,
		testGraph{"no-edges", mustGraph(t, 5, 4, nil, nil)},
		testGraph{"no-nodes", mustGraph(t, 0, 0, nil, nil)},
		testGraph{"no-dst", mustGraph(t, 3, 0, nil, nil)},
	)
	return gs
}

// planFor returns the plan Forward takes for op on these shapes.
func planFor(t testing.TB, op Op, lhs, rhs []int) bcast.Plan {
	t.Helper()
	switch op {
	case CopyU:
		return bcast.Same(lhs)
	case CopyE:
		return bcast.Same(rhs)
	}
	p, err := bcast.New(lhs, rhs, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// operands returns random u and e for op on g (nil for an operand the op
// does not read): u in [-1, 1) and e in [1, 2), so Div is safe.
func operands[T num.Float](r *rand.Rand, g *graph.Graph, op Op, p bcast.Plan) (u, e []T) {
	if op.UsesLHS() {
		u = kerneltest.Uniform[T](r, g.NumSrc()*p.LhsLen, -1, 1)
	}
	if op.UsesRHS() {
		e = kerneltest.Uniform[T](r, g.NumEdges()*p.RhsLen, 1, 2)
	}
	return u, e
}

// mismatch returns the first index where got and want differ by more than
// tol, relative to max(1, |want|), or -1.
func mismatch[T, U num.Float](got []T, want []U, tol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) || math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			return i
		}
	}
	return -1
}

// opCase is an op with a plan it applies to.
type opCase struct {
	op    Op
	shape string
	p     bcast.Plan
}

// opCases lists every op with every shape case it applies to.
func opCases(t testing.TB) []opCase {
	var out []opCase
	for _, s := range kerneltest.CopyShapes {
		out = append(out,
			opCase{CopyU, kerneltest.ShapeName(s), planFor(t, CopyU, s, nil)},
			opCase{CopyE, kerneltest.ShapeName(s), planFor(t, CopyE, nil, s)})
	}
	for _, op := range []Op{Add, Sub, Mul, Div} {
		for _, c := range kerneltest.ShapeCases {
			out = append(out, opCase{op, c.Name, planFor(t, op, c.LHS, c.RHS)})
		}
	}
	return out
}
