package spmm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
)

// narrowHeads are per-head weight shapes whose heads do not fill whole
// vectors: the permuting kernel's cases (TestAccelBits compares it with the
// Go loops bit for bit).
var narrowHeads = [][2][]int{
	{{8, 2}, {8, 1}},
	{{8, 4}, {8, 1}},
	{{4, 2}, {4, 1}},
	{{2, 4}, {2, 1}},
	{{16, 2}, {16, 1}},
	{{8, 3}, {8, 1}},
	{{4, 3}, {4, 1}},
	{{20, 2}, {20, 1}},
	{{8, 12}, {8, 1}},
}

func TestForwardNarrowHeads(t *testing.T) {
	t.Parallel()
	t.Run("float32", testForwardNarrowHeads[float32])
	t.Run("float64", testForwardNarrowHeads[float64])
}

// testForwardNarrowHeads checks u_mul_e sums and means with narrow heads
// against the COO-loop oracle, on the fixture graphs and on a graph with
// enough edges that prefetching crosses rows.
func testForwardNarrowHeads[T num.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	tol := kerneltest.Tolerance[T]()
	uniform, err := generate.Uniform(300, 6000, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range append(testGraphs(t), testGraph{"uniform", uniform}) {
		for _, s := range narrowHeads {
			p := planFor(t, Mul, s[0], s[1])
			u, e := operands[T](r, tg.g, Mul, p)
			for _, red := range []Reduce{Sum, Mean} {
				name := fmt.Sprintf("%s/%s/%s", tg.name, red, kerneltest.ShapeName(s[0]))
				want, _ := refForward(tg.g, Mul, red, u, e, p)
				got := make([]T, len(want))
				Forward(got, tg.g, Mul, red, u, e, p, nil)
				if i := mismatch(got, want, tol); i >= 0 {
					t.Errorf("%s: out[%d] = %v, want %v", name, i, got[i], want[i])
				}
			}
		}
	}
}
