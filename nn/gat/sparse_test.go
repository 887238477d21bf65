package gat_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
)

// TestForwardSparse checks that ForwardSparse gives the output and the
// parameter gradients of Forward on the densified features, with a residual
// projection and with feature dropout in evaluation (where both are the
// identity; in training the sparse and dense masks differ by design).
func TestForwardSparse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []gat.Option
	}{
		{"concat", []gat.Option{gat.WithHeads(2)}},
		{"residual-projection", []gat.Option{gat.WithHeads(2), gat.WithResidual(true)}},
		{"mean-dropout-eval", []gat.Option{gat.WithHeads(3), gat.WithMeanHeads(true), gat.WithFeatDropout(0.5)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const in = 3
			dense, indptr, indices, values := layertest.SparseFeatures(rand.New(rand.NewPCG(3, 3)), testN, in)
			var outs, grads [2][][]float64
			for k, sparse := range []bool{false, true} {
				eg := gorgonia.NewGraph()
				mode := nn.NewMode()
				mode.Eval()
				l, err := gat.New(eg, in, 2, append(c.opts, gat.WithMode(mode))...)
				if err != nil {
					t.Fatal(err)
				}
				layertest.Randomize(rand.New(rand.NewPCG(1, 1)), 0.5, l.Learnables()...)
				g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
				var y *gorgonia.Node
				if sparse {
					x, err := nn.NewSparse(eg, "x", testN, in, indptr, indices, values)
					if err != nil {
						t.Fatal(err)
					}
					if y, err = l.ForwardSparse(g, x); err != nil {
						t.Fatal(err)
					}
				} else {
					x := gradcheck.Input(eg, tensor.Float32, "x", []int{testN, in}, dense)
					if y, err = l.Forward(g, x); err != nil {
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

func TestForwardSparseErrors(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	_, indptr, indices, values := layertest.SparseFeatures(rand.New(rand.NewPCG(3, 3)), testN, 4)
	x, err := nn.NewSparse(eg, "x", testN, 4, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	identity, err := gat.New(eg, 4, 2, gat.WithHeads(2), gat.WithResidual(true))
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := gat.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := gat.New(eg, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
	cases := []struct {
		name string
		run  func() (*gorgonia.Node, error)
		want string
	}{
		{"nil", func() (*gorgonia.Node, error) { return ok.ForwardSparse(g, nil) }, "needs a graph"},
		{"bipartite", func() (*gorgonia.Node, error) {
			return ok.ForwardSparse(gradcheck.Graph(t, 5, 4, []int32{0}, []int32{0}), x)
		}, "homogeneous"},
		{"identity-residual", func() (*gorgonia.Node, error) { return identity.ForwardSparse(g, x) }, "identity residual"},
		{"columns", func() (*gorgonia.Node, error) { return narrow.ForwardSparse(g, x) }, "want (5, 3)"},
		{"zero-in-degree", func() (*gorgonia.Node, error) {
			return ok.ForwardSparse(gradcheck.Graph(t, 5, 5, []int32{0}, []int32{1}), x)
		}, "4 of 5 destination nodes"},
	}
	for _, c := range cases {
		layertest.ExpectError(t, c.name, "gat: ", c.want, c.run)
	}
}
