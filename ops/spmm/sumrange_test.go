package spmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/num"
)

// TestSumRange checks that SumRange has Forward's bits on its rows, on the
// vector kernels and in Go, float32 and float64, for ranges at the start,
// the middle and the end, one row, none, and all, on a graph large enough
// for several tasks (so the work split of a view not starting at row 0 is
// exercised).
func TestSumRange(t *testing.T) {
	t.Run("float32", testSumRange[float32])
	t.Run("float64", testSumRange[float64])
}

func testSumRange[T num.Float](t *testing.T) {
	g, err := generate.Uniform(3000, 40_000, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	n := g.NumDst()
	for _, accel := range []bool{true, false} {
		if accel && !useAVX2 {
			continue
		}
		for _, c := range []struct {
			op       Op
			lhs, rhs []int
		}{
			{CopyU, []int{16}, nil},
			{CopyU, []int{10}, nil},
			{Mul, []int{8}, []int{1}},
		} {
			t.Run(fmt.Sprintf("accel=%v/%s/%v", accel, c.op, c.lhs), func(t *testing.T) {
				saved := useAVX2
				useAVX2 = accel
				defer func() { useAVX2 = saved }()
				p := planFor(t, c.op, c.lhs, c.rhs)
				u, e := operands[T](r, g, c.op, p)
				want := make([]T, n*p.OutLen)
				Forward(want, g, c.op, Sum, u, e, p, nil)
				for _, rg := range [][2]int{{0, 1000}, {1234, 2900}, {2000, n}, {17, 18}, {5, 5}, {0, n}} {
					lo, hi := rg[0], rg[1]
					got := make([]T, (hi-lo)*p.OutLen)
					SumRange(got, g, lo, hi, c.op, u, e, p)
					for i, v := range got {
						if w := want[lo*p.OutLen+i]; math.Float64bits(float64(v)) != math.Float64bits(float64(w)) {
							t.Fatalf("[%d, %d): element %d: %v, want %v", lo, hi, i, v, w)
						}
					}
				}
			})
		}
	}
	defer func() {
		if m := fmt.Sprint(recover()); !strings.Contains(m, "outside") {
			t.Errorf("range past the end: panic %q, want one naming the range", m)
		}
	}()
	p := planFor(t, CopyU, []int{4}, nil)
	SumRange(make([]T, 4), g, n, n+1, CopyU, make([]T, g.NumSrc()*4), nil, p)
}
