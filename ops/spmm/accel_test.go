package spmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/bcast"
)

// The vector kernels run in the other tests when the machine has them;
// these tests check the pure-Go paths on the same machine and compare the
// two bit for bit. They toggle a package variable, so they do not run in
// parallel with the other tests (which wait for them).

func withoutAccel(t *testing.T) {
	saved := useAVX2
	useAVX2 = false
	t.Cleanup(func() { useAVX2 = saved })
}

func TestForwardPureGo(t *testing.T) {
	withoutAccel(t)
	t.Run("forward", testForward[float32])
	t.Run("dense", testForwardDense[float32])
}

// TestAccelBits checks that the vector kernels give the same bits as the
// pure-Go loops, on a graph large enough for prefetching to cross rows and
// for rows of more than one weight batch.
func TestAccelBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no vector kernels on this machine or build")
	}
	g, err := generate.Uniform(300, 10_000, 3)
	if err != nil {
		t.Fatal(err)
	}
	hub := skewedGraph(t, 300, 3000) // node 0 has 3000 in-edges: many batches
	// Numbered by destination, its CSC view is Ordered: scaled sums then
	// make each pass over all rows.
	ordered, _, err := g.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(10, 10))
	cases := []struct {
		op       Op
		lhs, rhs []int
	}{
		{CopyU, []int{8}, nil},
		{CopyU, []int{16}, nil},
		{CopyU, []int{64}, nil},
		{CopyU, []int{72}, nil},
		{CopyU, []int{200}, nil},
		{CopyU, []int{13}, nil},
		{CopyE, nil, []int{8}},
		{CopyE, nil, []int{72}},
		{CopyE, nil, []int{13}},
		{Mul, []int{64}, []int{1}},
		{Mul, []int{40}, []int{1}},
		{Mul, []int{1030}, []int{1}},
		{Mul, []int{8, 8}, []int{8, 1}},
		{Mul, []int{4, 16}, []int{4, 1}},
		{Mul, []int{8, 16}, []int{8, 1}},
		{Mul, []int{3, 8}, []int{3, 1}},
		{Mul, []int{64, 8}, []int{64, 1}},
		// Heads narrower than a vector or not a multiple of 8 wide:
		// the permuting kernel, with 1 to 4 chunks a pass, several
		// passes, masked weight loads (fewer than 8 heads), bases past
		// 0 (more than 8) and tails.
		{Mul, []int{8, 2}, []int{8, 1}},
		{Mul, []int{8, 4}, []int{8, 1}},
		{Mul, []int{4, 2}, []int{4, 1}},
		{Mul, []int{2, 4}, []int{2, 1}},
		{Mul, []int{8, 3}, []int{8, 1}},
		{Mul, []int{16, 2}, []int{16, 1}},
		{Mul, []int{12, 2}, []int{12, 1}},
		{Mul, []int{8, 12}, []int{8, 1}},
		{Mul, []int{4, 3}, []int{4, 1}},
		{Mul, []int{3, 5}, []int{3, 1}},
		{Mul, []int{20, 2}, []int{20, 1}},
		{Mul, []int{64, 2}, []int{64, 1}},
	}
	for _, tg := range []testGraph{{"uniform", g}, {"hub", hub}, {"ordered", ordered}} {
		for _, c := range cases {
			p := planFor(t, c.op, c.lhs, c.rhs)
			u, e := operands[float32](r, tg.g, c.op, p)
			for _, red := range []Reduce{Sum, Mean} {
				got := make([]float32, tg.g.NumDst()*p.OutLen)
				Forward(got, tg.g, c.op, red, u, e, p, nil)
				want := make([]float32, len(got))
				useAVX2 = false
				Forward(want, tg.g, c.op, red, u, e, p, nil)
				useAVX2 = true
				name := fmt.Sprintf("%s/%s/%s/%v/%v", tg.name, c.op, red, c.lhs, c.rhs)
				if i := firstBitDiff(got, want); i >= 0 {
					t.Errorf("%s: vector %v, pure Go %v at %d", name, got[i], want[i], i)
				}
			}
		}
	}
}

// TestAccelFoldBits checks the vector max and min against the Go loops,
// output and arg, on values drawn from a small set with both zeros and a
// NaN, so that ties, signed zeros and unordered comparisons all occur.
func TestAccelFoldBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no vector kernels on this machine or build")
	}
	g := skewedGraph(t, 400, 4000)
	values := []float32{float32(math.Copysign(0, -1)), 0, 1, -1, 2, float32(math.NaN())}
	r := rand.New(rand.NewPCG(11, 11))
	for _, f := range []int{8, 16, 64, 70, 200} {
		u := make([]float32, g.NumSrc()*f)
		for i := range u {
			u[i] = values[r.IntN(len(values))]
			if r.IntN(50) != 0 && math.IsNaN(float64(u[i])) {
				u[i] = 3 // keep NaNs rare
			}
		}
		p := bcast.Same([]int{f})
		for _, red := range []Reduce{Max, Min} {
			for _, withArg := range []bool{true, false} {
				got := make([]float32, g.NumDst()*f)
				want := make([]float32, len(got))
				var gotArg, wantArg []int64
				if withArg {
					gotArg, wantArg = make([]int64, len(got)), make([]int64, len(got))
				}
				Forward(got, g, CopyU, red, u, nil, p, gotArg)
				useAVX2 = false
				Forward(want, g, CopyU, red, u, nil, p, wantArg)
				useAVX2 = true
				if i := firstBitDiff(got, want); i >= 0 {
					t.Errorf("f=%d %s arg=%v: vector %v, pure Go %v at %d", f, red, withArg, got[i], want[i], i)
				}
				for i := range gotArg {
					if gotArg[i] != wantArg[i] {
						t.Errorf("f=%d %s: vector arg %d, pure Go %d at %d", f, red, gotArg[i], wantArg[i], i)
						break
					}
				}
			}
		}
	}
}
