package gcn_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/internal/layertest"
)

// TestForwardSparse checks that ForwardSparse gives the output and the
// parameter gradients of Forward on the densified features.
func TestForwardSparse(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures {
		for _, d := range [][2]int{{4, 2}, {2, 3}} {
			t.Run(fmt.Sprintf("%s/in=%d/out=%d", f.name, d[0], d[1]), func(t *testing.T) {
				in, out := d[0], d[1]
				dense, indptr, indices, values := layertest.SparseFeatures(rand.New(rand.NewPCG(3, 3)), f.ns, in)
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
						x, err := nn.NewSparse(eg, "x", f.ns, in, indptr, indices, values)
						if err != nil {
							t.Fatal(err)
						}
						y, err = l.ForwardSparse(f.graph(t), x)
						if err != nil {
							t.Fatal(err)
						}
					} else {
						x := layertest.Input(eg, tensor.Float32, "x", []int{f.ns, in}, dense)
						if y, err = l.Forward(f.graph(t), x); err != nil {
							t.Fatal(err)
						}
					}
					grads[k] = layertest.Gradients(t, y, l.Learnables(), 5)
					outs[k] = layertest.Run(t, y)
				}
				layertest.Expect(t, "output", outs[1][0], outs[0][0], 1e-5)
				for i := range grads[0] {
					layertest.Expect(t, fmt.Sprintf("gradient %d", i), grads[1][i], grads[0][i], 1e-5)
				}
			})
		}
	}
}

func TestForwardSparseErrors(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	eg := gorgonia.NewGraph()
	_, indptr, indices, values := layertest.SparseFeatures(rand.New(rand.NewPCG(3, 3)), f.ns, 3)
	x, err := nn.NewSparse(eg, "x", f.ns, 3, indptr, indices, values)
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
	zero := layertest.Graph(t, 5, 5, []int32{0}, []int32{1})
	cases := []struct {
		name string
		run  func() (*gorgonia.Node, error)
		want string
	}{
		{"nil", func() (*gorgonia.Node, error) { return ok.ForwardSparse(f.graph(t), nil) }, "needs a graph"},
		{"no-weight", func() (*gorgonia.Node, error) { return noWeight.ForwardSparse(f.graph(t), x) }, "needs a layer with a weight"},
		{"columns", func() (*gorgonia.Node, error) { return wide.ForwardSparse(f.graph(t), x) }, "want (5, 4)"},
		{"zero-in-degree", func() (*gorgonia.Node, error) { return ok.ForwardSparse(zero, x) }, "4 of 5 destination nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y, err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ForwardSparse = %v, %v; want an error containing %q", y, err, c.want)
			}
		})
	}
}
