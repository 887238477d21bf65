package nn

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// TestBatchNormShift checks BatchNormShift against the formula and by
// finite differences, and requires its output and its gradients to have
// the bits of BatchNorm, AddBias and ReLU applied one after the other.
func TestBatchNormShift(t *testing.T) {
	for _, s := range [][2]int{{7, 5}, {300, 3}, {1, 4}} {
		for _, dt := range gradcheck.Dtypes {
			for _, relu := range []bool{false, true} {
				n, f := s[0], s[1]
				t.Run(fmt.Sprintf("%dx%d/%v/relu=%v", n, f, dt, relu), func(t *testing.T) {
					build := func(fused bool) gradcheck.Func {
						return func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
							x := gradcheck.Input(eg, dt, "x", []int{n, f}, gradcheck.Draw(r, n*f))
							g := gradcheck.Input(eg, dt, "gamma", []int{f}, gradcheck.Draw(r, f))
							b := gradcheck.Input(eg, dt, "beta", []int{f}, gradcheck.Draw(r, f))
							in := gorgonia.Nodes{x, g, b}
							if fused {
								y, err := BatchNormShift(x, g, b, 1e-5, relu)
								return y, in, err
							}
							y, err := BatchNorm(x, g, 1e-5)
							if err != nil {
								return nil, nil, err
							}
							if y, err = AddBias(y, b); err != nil || !relu {
								return y, in, err
							}
							y, err = ReLU(y)
							return y, in, err
						}
					}
					outputs := func(fused bool) [][]float64 {
						y, in, err := build(fused)(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(1, 2)))
						if err != nil {
							t.Fatal(err)
						}
						grads := gradcheck.Gradients(t, y, in, rand.New(rand.NewPCG(3, 4)))
						return append(gradcheck.Run(t, y), grads...)
					}
					got, want := outputs(true), outputs(false)
					for i, what := range []string{"output", "dx", "dgamma", "dbeta"} {
						gradcheck.Expect(t, what+" against the separate ops", got[i], want[i], 0)
					}
					// The formula: naiveBatchNorm, the shift, ReLU.
					y, in, _ := build(true)(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(1, 2)))
					ref := naiveBatchNorm(gradcheck.Floats(in[0].Value()), gradcheck.Floats(in[1].Value()), n, f, 1e-5)
					beta := gradcheck.Floats(in[2].Value())
					for i := range ref {
						ref[i] += beta[i%f]
						if relu {
							ref[i] = max(ref[i], 0)
						}
					}
					tol := 1e-12
					if dt == tensor.Float32 {
						tol = 1e-5
					}
					gradcheck.Expect(t, "BatchNormShift", gradcheck.Run(t, y)[0], ref, tol)
					// Float32 finite differences step across ReLU's kink
					// at this step size; float64 ones check the fused
					// gradient with ReLU.
					if n > 1 && (dt == tensor.Float64 || !relu) {
						gradcheck.Check(t, dt, build(true), gradcheck.Options{Seed: 3, Stream: uint64(n), Float32Tol: 1e-4})
					}
				})
			}
		}
	}
}

func TestBatchNormShiftErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 3), gorgonia.WithName("x"))
	g := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("g"))
	b2 := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(2), gorgonia.WithName("b2"))
	b64 := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("b64"))
	for _, c := range []struct {
		beta *gorgonia.Node
		eps  float64
		want string
	}{
		{nil, 1e-5, "nil shift"},
		{b2, 1e-5, `shift "b2" has shape (2), want (3)`},
		{b64, 1e-5, `shift "b64" is float64`},
		{b2, 0, "BatchNormShift: eps 0"},
	} {
		if _, err := BatchNormShift(x, g, c.beta, c.eps, true); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// TestBatchNormShiftCacheInMachine: in a TapeMachine computing the
// gradients, as nn/train runs one, the backward ops take the statistics
// and the dy sums from the forward of the same run.
func TestBatchNormShiftCacheInMachine(t *testing.T) {
	const n, f = 50, 3
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(1, 2))
	x := gradcheck.Input(eg, tensor.Float32, "x", []int{n, f}, gradcheck.Draw(r, n*f))
	g := gradcheck.Input(eg, tensor.Float32, "gamma", []int{f}, gradcheck.Draw(r, f))
	b := gradcheck.Input(eg, tensor.Float32, "beta", []int{f}, gradcheck.Draw(r, f))
	y, err := BatchNormShift(x, g, b, 1e-5, true)
	if err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(y)
	if err != nil {
		t.Fatal(err)
	}
	params := gorgonia.Nodes{x, g, b}
	grads, err := gorgonia.Grad(cost, params...)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg.SubgraphRoots(append(gorgonia.Nodes{cost}, grads...)...), gorgonia.BindDualValues(params...))
	defer vm.Close()
	for range 2 {
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Reset()
	}
	c := y.Op().(*opkit.Op).Spec().(*batchNormShiftOp).bn.cache
	if c.statsHits != 4 || c.sumsHits != 2 {
		t.Errorf("%d statistics and %d dy sums from the cache in two runs, want 4 and 2", c.statsHits, c.sumsHits)
	}
}
