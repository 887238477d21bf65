package spmm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
)

// parallelCase is a call large enough to run on several workers.
type parallelCase struct {
	name     string
	op       Op
	red      Reduce
	lhs, rhs []int
}

var parallelCases = []parallelCase{
	{"copy_u/sum", CopyU, Sum, []int{16}, nil},
	{"copy_u/mean", CopyU, Mean, []int{16}, nil},
	{"copy_u/max", CopyU, Max, []int{16}, nil},
	{"copy_e/sum", CopyE, Sum, nil, []int{4}},
	{"u_mul_e/sum/scalar", Mul, Sum, []int{16}, []int{1}},
	{"u_mul_e/sum/heads", Mul, Sum, []int{4, 4}, []int{4, 1}},
	{"u_mul_e/sum/narrow-heads", Mul, Sum, []int{8, 2}, []int{8, 1}},
	{"u_add_e/sum/same", Add, Sum, []int{8}, []int{8}},
	{"u_mul_e/sum/bcast", Mul, Sum, []int{1, 4}, []int{4, 1}},
	{"u_div_e/min/heads", Div, Min, []int{4, 4}, []int{4, 1}},
}

// skewedGraph returns a graph of n nodes whose in-degrees follow a power
// law (node v receives about c/(v+1) edges), with uniform sources.
func skewedGraph(t testing.TB, n, c int) *graph.Graph {
	r := rand.New(rand.NewPCG(7, 7))
	var src, dst []int32
	for v := range n {
		for range c / (v + 1) {
			src = append(src, int32(r.IntN(n)))
			dst = append(dst, int32(v))
		}
	}
	kerneltest.Shuffle(r, src, dst)
	return mustGraph(t, n, n, src, dst)
}

// TestGOMAXPROCSDeterminism checks that outputs, args and gradients have
// the same bits on 1, 2 and 3 workers, on a uniform and a skewed graph.
// It changes GOMAXPROCS, so it does not run in parallel with other tests.
func TestGOMAXPROCSDeterminism(t *testing.T) {
	uniform, err := generate.Uniform(2000, 60_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	graphs := []testGraph{{"uniform", uniform}, {"skewed", skewedGraph(t, 2000, 20_000)}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(8, 8))
	for _, tg := range graphs {
		for _, c := range parallelCases {
			p := planFor(t, c.op, c.lhs, c.rhs)
			u, e := operands[float32](r, tg.g, c.op, p)
			dOut := kerneltest.Uniform[float32](r, tg.g.NumDst()*p.OutLen, -1, 1)
			var first [][]float32
			var firstArg []int64
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				out := make([]float32, tg.g.NumDst()*p.OutLen)
				arg := make([]int64, len(out))
				Forward(out, tg.g, c.op, c.red, u, e, p, arg)
				got := [][]float32{out}
				if c.red == Max || c.red == Min {
					du := make([]float32, len(u))
					de := make([]float32, len(e))
					BackwardArg(du, de, tg.g, c.op, u, e, p, arg, dOut)
					got = append(got, du, de)
				}
				if first == nil {
					first, firstArg = got, arg
					continue
				}
				for i := range got {
					if j := firstBitDiff(got[i], first[i]); j >= 0 {
						t.Errorf("%s %s: result %d differs at %d between 1 and %d workers", tg.name, c.name, i, j, procs)
					}
				}
				for i := range arg {
					if arg[i] != firstArg[i] && (c.red == Max || c.red == Min) {
						t.Errorf("%s %s: arg differs at %d between 1 and %d workers", tg.name, c.name, i, procs)
						break
					}
				}
			}
		}
	}
}

func firstBitDiff(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestAllocations checks that Forward allocates nothing in proportion to
// edges times features, only worker bookkeeping and scratch rows, and that
// BackwardArg allocates only its bit per edge and element. At E = 200k and
// F = 64, one float32 per edge and feature would be 51 MB.
func TestAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200k-edge graph")
	}
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const n, edges, f = 2000, 200_000, 64
	g, err := generate.Uniform(n, edges, 2)
	if err != nil {
		t.Fatal(err)
	}
	g.CSC() // built once, on first use: not the kernels' allocation
	g.CSR()
	r := rand.New(rand.NewPCG(9, 9))
	cases := append([]parallelCase{
		{"u_mul_e/sum/8x8", Mul, Sum, []int{8, 8}, []int{8, 1}},
		{"u_mul_e/max/bcast", Mul, Max, []int{1, f}, []int{2, 1}},
	}, parallelCases...)
	for _, c := range cases {
		if c.lhs != nil && c.lhs[len(c.lhs)-1] == 16 {
			c.lhs = []int{f}
		}
		p := planFor(t, c.op, c.lhs, c.rhs)
		u, e := operands[float32](r, g, c.op, p)
		out := make([]float32, n*p.OutLen)
		arg := make([]int64, len(out))
		forward := func() { Forward(out, g, c.op, c.red, u, e, p, arg) }
		forward()
		// Serial: AllocsPerRun runs with GOMAXPROCS 1.
		if a := testing.AllocsPerRun(1, forward); a > 8 {
			t.Errorf("%s: %v allocations per call on one worker, want at most 8", c.name, a)
		}
		// Parallel: bytes, counting goroutines and per-part scratch rows.
		slack := uint64(4096 + 1024*runtime.GOMAXPROCS(0)*partsPerWorker)
		if b := allocated(forward); b > slack {
			t.Errorf("%s: Forward allocated %d bytes, want at most %d (E*F*4 = %d)", c.name, b, slack, edges*f*4)
		}
		if c.red != Max && c.red != Min || u == nil {
			continue
		}
		dOut := make([]float32, len(out))
		du := make([]float32, len(u))
		backward := func() { BackwardArg(du, nil, g, c.op, u, e, p, arg, dOut) }
		limit := slack + uint64(edges*(p.OutLen+63)/64*8)
		if b := allocated(backward); b > limit {
			t.Errorf("%s: BackwardArg allocated %d bytes, want at most %d", c.name, b, limit)
		}
	}
}

// allocated returns the bytes fn allocates, the least of three calls.
func allocated(fn func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}
