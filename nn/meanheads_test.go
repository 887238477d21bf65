package nn

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// TestMeanHeads checks the mean over heads against a per-element loop and
// its gradient against finite differences (gradcheck.Check also checks that
// the output read after the gradient run is the forward value, which
// gorgonia.Mean failed), in float32 and float64.
func TestMeanHeads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, h, f int }{{5, 3, 2}, {1, 1, 4}, {1100, 2, 3}} {
		name := fmt.Sprintf("n%d-h%d-f%d", c.n, c.h, c.f)
		model := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
			x := gradcheck.Input(eg, dt, "x", []int{c.n, c.h * c.f}, gradcheck.Draw(r, c.n*c.h*c.f))
			y, err := meanHeads(x, c.n, c.h, c.f)
			return y, gorgonia.Nodes{x}, err
		}
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", name, dt), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				y, wrt, err := model(eg, dt, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				x := gradcheck.Values(wrt)[0]
				want := make([]float64, c.n*c.f)
				for n := range c.n {
					for j := range c.f {
						var s float64
						for k := range c.h {
							s += x[n*c.h*c.f+k*c.f+j]
						}
						want[n*c.f+j] = s / float64(c.h)
					}
				}
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-6
				}
				gradcheck.Expect(t, "mean over heads", gradcheck.Run(t, y)[0], want, tol)
				if c.n <= 5 {
					gradcheck.Check(t, dt, model, gradcheck.Options{Seed: 3, Stream: 4, Float32Tol: 1e-6})
				}
			})
		}
	}
}

// TestMeanHeadsShapes checks the graph-building errors.
func TestMeanHeadsShapes(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	x := gradcheck.Zeros(eg, tensor.Float64, "x", 4, 6)
	if _, err := meanHeads(x, 4, 4, 2); err == nil {
		t.Error("a (4, 6) input accepted as 4 heads of 2")
	}
	for _, h := range []int{0, 4} {
		if _, err := MeanHeads(x, h); err == nil || !strings.Contains(err.Error(), "want (N, heads*F)") {
			t.Errorf("MeanHeads of (4, 6) over %d heads: error %v", h, err)
		}
	}
	if _, err := MeanHeads(gradcheck.Zeros(eg, tensor.Float64, "v", 6), 2); err == nil {
		t.Error("a vector accepted")
	}
	if _, err := apply(&meanHeadsGradOp{n: 4, h: 3, f: 2}, x); err == nil {
		t.Error("the backward op accepted a (4, 6) gradient for (4, 2) outputs")
	}
}
