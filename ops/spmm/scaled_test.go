package spmm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph/generate"
)

// TestForwardScaled checks that ForwardScaled has the bits of Forward
// followed by the row scaling, on the vector kernels and in Go, for rows
// that fill vectors, leave a tail and take several passes, on a graph
// large enough for several tasks and blocks of rows.
func TestForwardScaled(t *testing.T) {
	g, err := generate.Uniform(3000, 40_000, 5)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	scale := make([]float32, g.NumDst())
	for i := range scale {
		scale[i] = r.Float32() + 0.5
	}
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
			{CopyU, []int{72}, nil},
			{Mul, []int{8, 8}, []int{8, 1}},
		} {
			t.Run(fmt.Sprintf("accel=%v/%s/%v", accel, c.op, c.lhs), func(t *testing.T) {
				saved := useAVX2
				useAVX2 = accel
				defer func() { useAVX2 = saved }()
				p := planFor(t, c.op, c.lhs, c.rhs)
				u, e := operands[float32](r, g, c.op, p)
				got := make([]float32, g.NumDst()*p.OutLen)
				ForwardScaled(got, g, c.op, u, e, p, scale)
				want := make([]float32, len(got))
				Forward(want, g, c.op, Sum, u, e, p, nil)
				for v := range g.NumDst() {
					for k := range p.OutLen {
						want[v*p.OutLen+k] *= scale[v]
					}
				}
				if i := firstBitDiff(got, want); i >= 0 {
					t.Errorf("element %d: %v, want %v", i, got[i], want[i])
				}
			})
		}
	}
}
