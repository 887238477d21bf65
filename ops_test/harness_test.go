package ops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// operand describes one input of an op under test.
type operand struct {
	at    ops.Target
	shape []int // feature shape
}

// builder adds the op under test to an expression graph.
type builder func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error)

func shapeOf(rows int, feat []int) []int { return append([]int{rows}, feat...) }

func size(s []int) int { return tensor.Shape(s).TotalSize() }

// inputs makes the nodes in0, in1, ... of spec over g holding vals.
func inputs(eg *gorgonia.ExprGraph, g *graph.Graph, dt tensor.Dtype, spec []operand, vals [][]float64) []*gorgonia.Node {
	in := make([]*gorgonia.Node, len(spec))
	for i, s := range spec {
		in[i] = gradcheck.Input(eg, dt, fmt.Sprintf("in%d", i), shapeOf(gradcheck.Rows(g, s.at), s.shape), vals[i])
	}
	return in
}

// draw draws values for every operand of spec over g.
func draw(r *rand.Rand, g *graph.Graph, spec []operand) [][]float64 {
	vals := make([][]float64, len(spec))
	for i, s := range spec {
		vals[i] = gradcheck.Draw(r, size(shapeOf(gradcheck.Rows(g, s.at), s.shape)))
	}
	return vals
}

// forward builds the op on fresh inputs and returns its output values.
func forward(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, vals [][]float64, build builder) ([]float64, []int) {
	t.Helper()
	out, err := build(g, inputs(gorgonia.NewGraph(), g, dt, spec, vals))
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return gradcheck.Run(t, out)[0], out.Shape()
}

// gradCheck checks the gradients of the op with respect to every input (see
// gradcheck.Check), its inputs and R drawn from seed.
func gradCheck(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64) {
	t.Helper()
	gradCheckOpt(t, g, dt, spec, build, seed, false)
}

// gradCheckNonsmooth is gradCheck for piecewise-linear ops (max, min): in
// float32 a finite-difference step large enough to be resolved can cross the
// point where the winning edge changes, so float32 gradients are checked
// against the float64 gradients only (which are checked by finite
// differences).
func gradCheckNonsmooth(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64) {
	t.Helper()
	gradCheckOpt(t, g, dt, spec, build, seed, true)
}

func gradCheckOpt(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64, nonSmooth bool) {
	t.Helper()
	f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		in := inputs(eg, g, dt, spec, draw(r, g, spec))
		out, err := build(g, in)
		return out, in, err
	}
	gradcheck.Check(t, dt, f, gradcheck.Options{Seed: seed, Stream: 7, Float32Tol: 1e-4, NonSmooth: nonSmooth})
}

// tolerance for forward values against the float64 references.
func tolerance(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 1e-5
	}
	return 1e-12
}
