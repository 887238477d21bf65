package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// TestPairScoreInto checks that UCosV, DistMult and their backward ops
// write into a buffer of the output's shape holding anything (what nn/vm
// gives them from an earlier run) with the bits of Do.
func TestPairScoreInto(t *testing.T) {
	g := gradcheck.Graph(t, 5, 4, []int32{0, 1, 2, 3, 4, 0, 2}, []int32{1, 0, 3, 2, 1, 3, 0})
	const f, r = 3, 2
	for _, dt := range gradcheck.Dtypes {
		for _, scorer := range []string{"cos", "distmult"} {
			name := fmt.Sprintf("%s/%v", scorer, dt)
			eg := gorgonia.NewGraph()
			rng := rand.New(rand.NewPCG(5, 6))
			a := gradcheck.Input(eg, dt, "a", []int{5, f}, gradcheck.Draw(rng, 5*f))
			b := gradcheck.Input(eg, dt, "b", []int{4, f}, gradcheck.Draw(rng, 4*f))
			wrt := gorgonia.Nodes{a, b}
			var s *gorgonia.Node
			var err error
			if scorer == "cos" {
				s, err = ops.UCosV(g, a, b, 1e-8)
			} else {
				w := gradcheck.Input(eg, dt, "w", []int{r, f}, gradcheck.Draw(rng, r*f))
				wrt = append(wrt, w)
				s, err = ops.DistMult(g, a, w, b, relations(g, r, rng))
			}
			if err != nil {
				t.Fatal(err)
			}
			cost, err := gorgonia.Sum(s)
			if err != nil {
				t.Fatal(err)
			}
			grads, err := gorgonia.Grad(cost, wrt...)
			if err != nil {
				t.Fatal(err)
			}
			nodes := append(gorgonia.Nodes{s}, grads...)
			gradcheck.Run(t, nodes...)
			for _, n := range nodes {
				op, ok := n.Op().(interface {
					Do(...gorgonia.Value) (gorgonia.Value, error)
					DoInto(gorgonia.Value, ...gorgonia.Value) (gorgonia.Value, error)
				})
				if !ok {
					t.Fatalf("%s: %v has no DoInto", name, n)
				}
				var vals []gorgonia.Value
				for kids := eg.From(n.ID()); kids.Next(); {
					vals = append(vals, kids.Node().(*gorgonia.Node).Value())
				}
				want, err := op.Do(vals...)
				if err != nil {
					t.Fatal(err)
				}
				dst := tensor.New(tensor.WithShape(n.Shape().Clone()...), tensor.Of(dt))
				switch d := dst.Data().(type) {
				case []float32:
					for i := range d {
						d[i] = float32(math.NaN())
					}
				case []float64:
					for i := range d {
						d[i] = math.NaN()
					}
				}
				got, err := op.DoInto(dst, vals...)
				if err != nil {
					t.Fatal(err)
				}
				if got != gorgonia.Value(dst) {
					t.Errorf("%s: %v did not write into the buffer it was given", name, n)
				}
				gv, wv := gradcheck.Floats(got), gradcheck.Floats(want)
				for i := range wv {
					if math.Float64bits(gv[i]) != math.Float64bits(wv[i]) {
						t.Fatalf("%s: %v element %d is %v into a buffer, %v by Do", name, n, i, gv[i], wv[i])
					}
				}
			}
		}
	}
}
