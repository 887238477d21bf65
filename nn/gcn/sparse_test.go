package gcn_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
)

// TestForwardSparse checks that ForwardSparse gives the output and the
// parameter gradients of Forward on the densified features.
func TestForwardSparse(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures {
		for _, d := range [][2]int{{4, 2}, {2, 3}} {
			t.Run(fmt.Sprintf("%s/in=%d/out=%d", f.Name, d[0], d[1]), func(t *testing.T) {
				in, out := d[0], d[1]
				dense, indptr, indices, values := layertest.SparseFeatures(rand.New(rand.NewPCG(3, 3)), f.NumSrc, in)
				var outs, grads [2][][]float64
				for k, sparse := range []bool{false, true} {
					eg := gorgonia.NewGraph()
					l, err := gcn.New(eg, in, out, gcn.WithActivation(gorgonia.Tanh))
					if err != nil {
						t.Fatal(err)
					}
					layertest.Randomize(rand.New(rand.NewPCG(1, 1)), 0.5, l.Learnables()...)
					var y *gorgonia.Node
					if sparse {
						x, err := nn.NewSparse(eg, "x", f.NumSrc, in, indptr, indices, values)
						if err != nil {
							t.Fatal(err)
						}
						y, err = l.ForwardSparse(f.Graph(t), x)
						if err != nil {
							t.Fatal(err)
						}
					} else {
						x := gradcheck.Input(eg, tensor.Float32, "x", []int{f.NumSrc, in}, dense)
						if y, err = l.Forward(f.Graph(t), x); err != nil {
							t.Fatal(err)
						}
					}
					grads[k] = layertest.Gradients(t, y, l.Learnables(), 5)
					outs[k] = gradcheck.Run(t, y)
				}
				gradcheck.Expect(t, "output", outs[1][0], outs[0][0], 1e-5)
				for i := range grads[0] {
					gradcheck.Expect(t, fmt.Sprintf("gradient %d", i), grads[1][i], grads[0][i], 1e-5)
				}
			})
		}
	}
}

func TestForwardSparseErrors(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	eg := gorgonia.NewGraph()
	_, indptr, indices, values := layertest.SparseFeatures(rand.New(rand.NewPCG(3, 3)), f.NumSrc, 3)
	x, err := nn.NewSparse(eg, "x", f.NumSrc, 3, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	noWeight, err := gcn.New(eg, 3, 3, gcn.WithWeight(false))
	if err != nil {
		t.Fatal(err)
	}
	wide, err := gcn.New(eg, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := gcn.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	zero := gradcheck.Graph(t, 5, 5, []int32{0}, []int32{1})
	cases := []struct {
		name string
		run  func() (*gorgonia.Node, error)
		want string
	}{
		{"nil", func() (*gorgonia.Node, error) { return ok.ForwardSparse(f.Graph(t), nil) }, "needs a graph"},
		{"no-weight", func() (*gorgonia.Node, error) { return noWeight.ForwardSparse(f.Graph(t), x) }, "needs a layer with a weight"},
		{"columns", func() (*gorgonia.Node, error) { return wide.ForwardSparse(f.Graph(t), x) }, "want (5, 4)"},
		{"zero-in-degree", func() (*gorgonia.Node, error) { return ok.ForwardSparse(zero, x) }, "4 of 5 destination nodes"},
	}
	for _, c := range cases {
		layertest.ExpectError(t, c.name, "gcn: ", c.want, c.run)
	}
}
