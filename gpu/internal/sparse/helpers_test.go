//go:build gnncuda

package sparse

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
)

// contexts returns the emulator and, when the machine has one, the first
// GPU.
func contexts(t *testing.T) []*cuda.Context {
	t.Helper()
	e, err := cuda.OpenEmulator()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	cs := []*cuda.Context{e}
	if g, err := cuda.Open(0); err == nil {
		t.Cleanup(func() { g.Close() })
		cs = append(cs, g)
	}
	return cs
}

// fixtures returns the kernel packages' test graphs plus the cases the
// device adds: a skewed graph whose last nodes have no in-edges, with
// parallel edges and self-loops and edge IDs shuffled against the
// destinations, and the reverses of the bipartite and skewed graphs.
func fixtures(t *testing.T) []testgraphs.Fixture {
	fs := testgraphs.Fixtures(t)
	r := rand.New(rand.NewPCG(3, 3))
	const n = 30
	var src, dst []int32
	for v := range 25 {
		for range 60/(v+1) + 1 {
			src, dst = append(src, int32(r.IntN(n))), append(dst, int32(v))
		}
	}
	src, dst = append(src, 4, 4, 4), append(dst, 7, 7, 7)
	r.Shuffle(len(src), func(i, j int) {
		src[i], src[j] = src[j], src[i]
		dst[i], dst[j] = dst[j], dst[i]
	})
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

func upload(t *testing.T, c *cuda.Context, g *graph.Graph) *Graph {
	t.Helper()
	d, err := Upload(c, g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free() })
	return d
}

// toDevice copies x to new device memory, freed when the test ends.
func toDevice[T num.Float | int64](t *testing.T, c *cuda.Context, x []T) Buf {
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
func filled[T num.Float | int64](t *testing.T, c *cuda.Context, n int) Buf {
	x := make([]T, n)
	for i := range x {
		x[i] = 12345
	}
	return toDevice(t, c, x)
}

func toHost[T num.Float | int64](t *testing.T, c *cuda.Context, b Buf) []T {
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

func randSlice[T num.Float](r *rand.Rand, n int, lo, hi float64) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(lo + (hi-lo)*r.Float64())
	}
	return x
}

// tolerance is the bound: 1e-5 relative for float32, 1e-12 for
// float64, relative to max(1, |want|).
func tolerance[T num.Float]() float64 {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return 1e-5
	}
	return 1e-12
}

// compare fails the test at the first element where got and want differ
// by more than the tolerance of T.
func compare[T num.Float](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	tol := tolerance[T]()
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

// shapeCase is a pair of operand feature shapes for a binary op.
type shapeCase struct {
	name     string
	lhs, rhs []int
}

// shapeCases are the broadcast patterns of ops/spmm's tests: same shape, a
// scalar per edge, per-head weights, broadcast lhs, a rhs without feature
// dims, an outer product, many heads, and the vector kernels' widths.
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
	{"heads-8x8", []int{8, 8}, []int{8, 1}},
	{"scalar-e-64", []int{64}, []int{1}},
}

// copyShapes are the feature shapes of copy_u and copy_e.
var copyShapes = [][]int{{1}, {5}, {2, 3}, {8}, {17}, {64}, {70}}

func shapeName(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

func mustPlan(t *testing.T, lhs, rhs []int, dot bool) bcast.Plan {
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
