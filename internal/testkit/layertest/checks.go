package layertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
)

// Layer is what the shared checks use of a layer.
type Layer = nn.WeightedLayer

// DropoutModes checks a layer with dropout under mode against the same layer
// without (built with the same seed in eg), on one float64 input
// (g.NumSrc() x in): in evaluation their outputs agree to 1e-12, in training
// (after mode.Next) they differ by more than 1e-6.
func DropoutModes(t *testing.T, eg *gorgonia.ExprGraph, g *graph.Graph, in int, mode *nn.Mode, plain, dropped Layer) {
	t.Helper()
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{g.NumSrc(), in}, gradcheck.Draw(rand.New(rand.NewPCG(1, 2)), g.NumSrc()*in))
	y0, y1 := forwardBoth(t, g, x, plain, dropped)
	mode.Eval()
	got := gradcheck.Run(t, y0, y1)
	gradcheck.Expect(t, "evaluation", got[1], got[0], 1e-12)
	mode.Train()
	mode.Next()
	got = gradcheck.Run(t, y0, y1)
	if !gradcheck.Differ(got[1], got[0], 1e-6) {
		t.Error("dropout in training left the output unchanged")
	}
}

// UniqueNames checks that two layers built alike in eg (same shape and
// seed, no name) stay apart: they share no learnable node or name, and once
// param, a learnable of b, is set to vals, their outputs on one float32
// input (g.NumSrc() x in) differ by more than tol.
func UniqueNames(t *testing.T, eg *gorgonia.ExprGraph, g *graph.Graph, in int, a, b Layer, param *gorgonia.Node, vals []float64, tol float64) {
	t.Helper()
	nodes := map[*gorgonia.Node]bool{}
	names := map[string]bool{}
	for _, p := range slices.Concat(a.Learnables(), b.Learnables()) {
		if nodes[p] {
			t.Fatalf("the two layers share the node %q", p.Name())
		}
		nodes[p] = true
		if names[p.Name()] {
			t.Errorf("parameter name %q used twice", p.Name())
		}
		names[p.Name()] = true
	}
	x := gradcheck.Input(eg, tensor.Float32, "x", []int{g.NumSrc(), in}, gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), g.NumSrc()*in))
	ya, yb := forwardBoth(t, g, x, a, b)
	gradcheck.Set(param, vals)
	got := gradcheck.Run(t, ya, yb)
	if !gradcheck.Differ(got[0], got[1], tol) {
		t.Errorf("the two layers give the same output %v: their nodes merged", got[0])
	}
}

// Seeded checks that init, which builds a layer of dtype dt from seed and
// returns its parameter values, depends on the seed and dtype only: one
// seed gives the same values twice, and float32 the float64 values to 1e-7.
// It returns the float64 values for seed and for seed+1.
func Seeded(t *testing.T, seed uint64, init func(seed uint64, dt tensor.Dtype) [][]float64) (vals, next [][]float64) {
	t.Helper()
	vals, again, vals32 := init(seed, tensor.Float64), init(seed, tensor.Float64), init(seed, tensor.Float32)
	if len(again) != len(vals) || len(vals32) != len(vals) {
		t.Fatalf("seed %d gives %d, %d and (float32) %d parameters", seed, len(vals), len(again), len(vals32))
	}
	for i := range vals {
		gradcheck.Expect(t, fmt.Sprintf("same seed, parameter %d", i), again[i], vals[i], 0)
		gradcheck.Expect(t, fmt.Sprintf("float32, parameter %d", i), vals32[i], vals[i], 1e-7)
	}
	return vals, init(seed+1, tensor.Float64)
}

// Bounded checks that every element of a weight lies within ±bound, as a
// Glorot-uniform initialisation does.
func Bounded(t *testing.T, w []float64, bound float64) {
	t.Helper()
	for i, v := range w {
		if !(math.Abs(v) <= bound) {
			t.Errorf("weight[%d] = %v is outside ±%v", i, v, bound)
		}
	}
}

// forwardBoth runs a and b on x.
func forwardBoth(t *testing.T, g *graph.Graph, x *gorgonia.Node, a, b Layer) (ya, yb *gorgonia.Node) {
	t.Helper()
	ya, err := a.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	if yb, err = b.Forward(g, x); err != nil {
		t.Fatal(err)
	}
	return ya, yb
}
