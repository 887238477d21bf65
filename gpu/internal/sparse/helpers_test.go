//go:build gnncuda

package sparse

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/cudatest"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/ops/spmm"
)

// fixtures returns the kernel packages' test graphs plus the cases the
// device adds: a skewed graph whose last nodes have no in-edges, with
// parallel edges and self-loops and edge IDs shuffled against the
// destinations, and the reverses of the bipartite and skewed graphs.
func fixtures(t *testing.T) []testgraphs.Fixture {
	fs := testgraphs.Fixtures(t)
	r := rand.New(rand.NewPCG(3, 3))
	const n = 30
	src, dst := kerneltest.Skewed(r, n, 25)
	src, dst = append(src, 4, 4, 4), append(dst, 7, 7, 7)
	kerneltest.Shuffle(r, src, dst)
	skewed := testgraphs.Must(t, n, n, src, dst)
	fs = append(fs, testgraphs.Fixture{Name: "skewed", G: skewed},
		testgraphs.Fixture{Name: "skewed-reverse", G: skewed.Reverse()})
	for _, f := range fs {
		if f.Name == "bipartite" {
			fs = append(fs, testgraphs.Fixture{Name: "bipartite-reverse", G: f.G.Reverse()})
			break
		}
	}
	return fs
}

// eachGraph calls fn for every context and fixture, with the fixture's
// graph uploaded to the context as g.
func eachGraph(t *testing.T, fn func(c *cuda.Context, f testgraphs.Fixture, g *Graph)) {
	for _, c := range cudatest.Contexts(t) {
		for _, f := range fixtures(t) {
			fn(c, f, upload(t, c, f.G))
		}
	}
}

// upload copies g to the device, freed when the test ends.
func upload(t testing.TB, c *cuda.Context, g *graph.Graph) *Graph {
	t.Helper()
	d, err := Upload(c, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free() })
	return d
}

// toDevice copies x to new device memory, freed when the test ends.
func toDevice[T num.Float | int64](t testing.TB, c *cuda.Context, x []T) Buf {
	t.Helper()
	var z T
	size := int(unsafe.Sizeof(z)) * len(x)
	p, err := c.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Free(p) })
	if len(x) > 0 {
		if err := c.CopyToDevice(p, unsafe.Pointer(&x[0]), size); err != nil {
			t.Fatal(err)
		}
	}
	return Buf{Ptr: p, Len: len(x)}
}

// filled returns device memory of n elements holding a sentinel, so that
// elements a kernel fails to write show.
func filled[T num.Float | int64](t testing.TB, c *cuda.Context, n int) Buf {
	x := make([]T, n)
	for i := range x {
		x[i] = 12345
	}
	return toDevice(t, c, x)
}

func toHost[T num.Float | int64](t testing.TB, c *cuda.Context, b Buf) []T {
	t.Helper()
	x := make([]T, b.Len)
	if b.Len > 0 {
		var z T
		if err := c.CopyToHost(unsafe.Pointer(&x[0]), b.Ptr, b.Len*int(unsafe.Sizeof(z))); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

// compare fails the test at the first element where got and want differ
// by more than the tolerance of T.
func compare[T num.Float](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	tol := kerneltest.Tolerance[T]()
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		if math.IsNaN(g) || math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, g, w)
		}
	}
}

// opCase is a binary op with a plan: ops/spmm's and ops/sddmm's Op are
// one type, in which CopyU is CopyLHS and CopyE is CopyRHS.
type opCase struct {
	op    spmm.Op
	shape string
	p     bcast.Plan
}

// opCases returns the copy ops on every copy shape and the arithmetic ops
// on every broadcast pair of ops/spmm's tests.
func opCases(t *testing.T) []opCase {
	var cs []opCase
	for _, s := range kerneltest.CopyShapes {
		name := kerneltest.ShapeName(s)
		cs = append(cs, opCase{spmm.CopyU, name, bcast.Same(s)}, opCase{spmm.CopyE, name, bcast.Same(s)})
	}
	for _, op := range []spmm.Op{spmm.Add, spmm.Sub, spmm.Mul, spmm.Div} {
		for _, s := range kerneltest.ShapeCases {
			cs = append(cs, opCase{op, s.Name, mustPlan(t, s.LHS, s.RHS, false)})
		}
	}
	return cs
}

func mustPlan(t testing.TB, lhs, rhs []int, dot bool) bcast.Plan {
	t.Helper()
	p, err := bcast.New(lhs, rhs, dot)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// offsets returns a plan's offset tables, identity tables when trivial.
func offsets(p bcast.Plan) (lo, ro []int) {
	lo, ro = p.LhsOff, p.RhsOff
	if p.Trivial {
		lo, ro = make([]int, p.OutLen), make([]int, p.OutLen)
		for k := range lo {
			lo[k], ro[k] = k, k
		}
	}
	return lo, ro
}
