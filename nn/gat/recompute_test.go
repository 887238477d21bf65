package gat_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/vm"
)

// TestRecompute checks that a layer built WithRecompute gives the output
// and gradients (of the features and every parameter) of the default layer,
// which keeps the attention: the same bits in float64, within 1e-5 in
// float32 (the default's vector kernels round differently), with one head
// and four, concatenated and averaged; and that on nn/vm, where the
// backward's passes hand their extra results on through buffers reused
// from run to run, two runs give the tape's values.
func TestRecompute(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
	for _, heads := range []int{1, 4} {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("heads=%d/%v", heads, dt), func(t *testing.T) {
				run := func(recompute, onVM bool) [][]float64 {
					eg := gorgonia.NewGraph()
					l, err := gat.New(eg, 3, 2, gat.WithHeads(heads), gat.WithMeanHeads(heads > 2), gat.WithResidual(true),
						gat.WithSeed(5), gat.WithDtype(dt), gat.WithRecompute(recompute))
					if err != nil {
						t.Fatal(err)
					}
					r := rand.New(rand.NewPCG(1, 1))
					layertest.Randomize(r, 0.5, l.Learnables()...)
					y, wrt, err := layertest.Output(eg, dt, r, g, l, 3, false)
					if err != nil {
						t.Fatal(err)
					}
					if !onVM {
						return append(layertest.Gradients(t, y, wrt, 2), gradcheck.Floats(y.Value()))
					}
					return vmGradients(t, y, wrt)
				}
				want := run(false, false)
				tol := 0.0
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				for _, onVM := range []bool{false, true} {
					got := run(true, onVM)
					for i := range want {
						gradcheck.Expect(t, fmt.Sprintf("vm=%v result %d", onVM, i), got[i], want[i], tol)
					}
				}
			})
		}
	}
}

// vmGradients is layertest.Gradients and the output, run twice on an
// nn/vm Machine; it returns the second run's values after checking that
// the first gave the same.
func vmGradients(t *testing.T, y *gorgonia.Node, wrt gorgonia.Nodes) [][]float64 {
	t.Helper()
	eg := y.Graph()
	proj := gradcheck.Input(eg, y.Dtype(), "R", y.Shape(), gradcheck.Draw(rand.New(rand.NewPCG(2, 0x5eed)), y.Shape().TotalSize()))
	p, err := gorgonia.HadamardProd(y, proj)
	if err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(p)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(cost, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.New(append(grads, y))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var first [][]float64
	for run := range 2 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		var vals [][]float64
		for _, n := range append(grads, y) {
			vals = append(vals, gradcheck.Floats(n.Value()))
		}
		if run == 0 {
			first = vals
			continue
		}
		for i := range vals {
			gradcheck.Expect(t, fmt.Sprintf("second run, result %d", i), vals[i], first[i], 0)
		}
	}
	return first
}
