package prop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// TestEdgeWeightNorm checks the weight norm against its formula, per edge,
// and its gradient by finite differences, on a graph with parallel edges, a
// self-loop and a node without in-edges (node 5, whose +Inf factor must not
// reach the gradients).
func TestEdgeWeightNorm(t *testing.T) {
	src := []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1, 1, 5}
	dst := []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1, 0, 0}
	g := gradcheck.Graph(t, 6, 6, src, dst)
	f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		v := gradcheck.Draw(r, len(src))
		for i := range v {
			v[i] = math.Abs(v[i])
		}
		ew := gradcheck.Input(eg, dt, "ew", []int{len(src), 1}, v)
		y, err := EdgeWeightNorm(g, ew)
		return y, gorgonia.Nodes{ew}, err
	}
	for _, dt := range gradcheck.Dtypes {
		t.Run(fmt.Sprint(dt), func(t *testing.T) {
			y, wrt, err := f(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(4, 4)))
			if err != nil {
				t.Fatal(err)
			}
			w := gradcheck.Values(wrt)[0]
			wout, win := make([]float64, 6), make([]float64, 6)
			for e := range src {
				wout[src[e]] += w[e]
				win[dst[e]] += w[e]
			}
			want := make([]float64, len(src))
			for e := range src {
				want[e] = w[e] / math.Sqrt(wout[src[e]]*win[dst[e]])
			}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-6
			}
			gradcheck.Expect(t, "normalised weights", gradcheck.Run(t, y)[0], want, tol)
			gradcheck.Check(t, dt, f, gradcheck.Options{Seed: 1, Stream: 2, Float32Tol: 1e-4})
		})
	}
}
