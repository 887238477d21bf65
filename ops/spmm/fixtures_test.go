package spmm

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
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
		var src, dst []int32
		for v := range 25 {
			for range 60/(v+1) + 1 {
				src = append(src, int32(r.IntN(n)))
				dst = append(dst, int32(v))
			}
		}
		shuffle(r, src, dst)
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
		shuffle(r, src, dst)
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

func shuffle(r *rand.Rand, src, dst []int32) {
	r.Shuffle(len(src), func(i, j int) {
		src[i], src[j] = src[j], src[i]
		dst[i], dst[j] = dst[j], dst[i]
	})
}

// shapeCase is a pair of operand feature shapes for a binary message.
type shapeCase struct {
	name     string
	lhs, rhs []int
}

// shapeCases are the broadcast patterns checked for every binary op: same
// shape, a scalar per edge, per-head weights, a broadcast lhs, a rhs with
// no feature dimensions, an outer product, and more heads than the scaled
// fast path takes.
var shapeCases = []shapeCase{
	{"same", []int{5}, []int{5}},
	{"same-2d", []int{2, 3}, []int{2, 3}},
	{"scalar-e", []int{6}, []int{1}},
	{"empty-e", []int{4}, []int{}},
	{"heads", []int{3, 4}, []int{3, 1}},
	{"bcast-u", []int{1, 4}, []int{3, 1}},
	{"scalar-u", []int{3, 1}, []int{3, 4}},
	{"outer", []int{2, 1, 3}, []int{1, 4, 1}},
	{"many-heads", []int{70, 2}, []int{70, 1}},
	// Widths for the vector kernels: one 8-wide chunk per head, heads of
	// two chunks, and scalar weights on 64 columns, on 24 (neither of the
	// fixed widths) and on 20 (a 4-column tail).
	{"heads-8x8", []int{8, 8}, []int{8, 1}},
	{"heads-2x16", []int{2, 16}, []int{2, 1}},
	{"scalar-e-64", []int{64}, []int{1}},
	{"scalar-e-24", []int{24}, []int{1}},
	{"scalar-e-20", []int{20}, []int{1}},
}

// copyShapes are the feature shapes checked for copy_u and copy_e.
// Widths 8, 16, 24, 64 and 70 reach the vector kernels' paths.
var copyShapes = [][]int{{1}, {5}, {2, 3}, {8}, {17}, {24}, {64}, {70}}

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

// randSlice returns n values uniform in [lo, hi).
func randSlice[T num.Float](r *rand.Rand, n int, lo, hi float64) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(lo + (hi-lo)*r.Float64())
	}
	return x
}

// operands returns random u and e for op on g (nil for an operand the op
// does not read): u in [-1, 1) and e in [1, 2), so Div is safe.
func operands[T num.Float](r *rand.Rand, g *graph.Graph, op Op, p bcast.Plan) (u, e []T) {
	if op.UsesLHS() {
		u = randSlice[T](r, g.NumSrc()*p.LhsLen, -1, 1)
	}
	if op.UsesRHS() {
		e = randSlice[T](r, g.NumEdges()*p.RhsLen, 1, 2)
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

// tolerance is the comparison tolerance for T against an oracle that adds
// in the same order: a few ulps of headroom, for compilers that fuse
// multiply-adds (float32 ulp 6e-8, float64 1e-16).
func tolerance[T num.Float]() float64 {
	var x T
	if _, ok := any(x).(float32); ok {
		return 1e-5
	}
	return 1e-12
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
	for _, s := range copyShapes {
		out = append(out,
			opCase{CopyU, shapeName(s), planFor(t, CopyU, s, nil)},
			opCase{CopyE, shapeName(s), planFor(t, CopyE, nil, s)})
	}
	for _, op := range []Op{Add, Sub, Mul, Div} {
		for _, c := range shapeCases {
			out = append(out, opCase{op, c.name, planFor(t, op, c.lhs, c.rhs)})
		}
	}
	return out
}

// shapeName writes a shape as 2x3.
func shapeName(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}
