// Package layertest holds what the tests of gnn's layers share: building
// small graphs and input nodes, reading and writing node values as float64,
// comparing with a dense reference, and a finite-difference check of the
// gradients gorgonia.Grad builds through a whole layer.
//
// It is for tests only; it imports package testing.
package layertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
)

// Dtypes are the dtypes every layer is tested in.
var Dtypes = []tensor.Dtype{tensor.Float64, tensor.Float32}

// Tol is the tolerance of forward values against a float64 reference,
// relative to max(1, |want|): float64 layers agree to rounding (a few ulps
// of sums of a handful of terms), float32 ones to float32 rounding.
func Tol(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 2e-5
	}
	return 1e-12
}

// Graph builds a graph from a COO edge list or fails the test.
func Graph(t testing.TB, numSrc, numDst int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(numSrc, numDst, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Draw returns n values with magnitudes in [0.5, 1.5] and random signs,
// rounded to float32 so that float32 and float64 runs see the same numbers.
// They stay away from 0, where ReLU and LeakyReLU have kinks, and are
// continuous, so max aggregation has no ties.
func Draw(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		x := 0.5 + r.Float64()
		if r.IntN(2) == 0 {
			x = -x
		}
		v[i] = float64(float32(x))
	}
	return v
}

// Input returns an input node of the given dtype, name and shape holding
// vals.
func Input(eg *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape []int, vals []float64) *gorgonia.Node {
	var backing any
	if dt == tensor.Float32 {
		f := make([]float32, len(vals))
		for i, x := range vals {
			f[i] = float32(x)
		}
		backing = f
	} else {
		backing = append([]float64{}, vals...)
	}
	v := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(backing))
	return gorgonia.NodeFromAny(eg, v, gorgonia.WithName(name))
}

// Floats returns a copy of a value's elements as float64.
func Floats(v gorgonia.Value) []float64 {
	switch d := v.Data().(type) {
	case []float64:
		return append([]float64{}, d[:v.Size()]...)
	case []float32:
		out := make([]float64, v.Size())
		for i := range out {
			out[i] = float64(d[i])
		}
		return out
	case float64:
		return []float64{d}
	case float32:
		return []float64{float64(d)}
	}
	panic(fmt.Sprintf("layertest: value data %T", v.Data()))
}

// Set overwrites the elements of a node's value in place with vals.
func Set(n *gorgonia.Node, vals []float64) {
	switch d := n.Value().Data().(type) {
	case []float64:
		copy(d, vals)
	case []float32:
		for i, x := range vals {
			d[i] = float32(x)
		}
	default:
		panic(fmt.Sprintf("layertest: cannot set %T data", d))
	}
}

// Randomize overwrites every element of the nodes' values with scale times
// a Draw, so that a reference sees non-trivial parameters (a non-zero bias).
func Randomize(r *rand.Rand, scale float64, nodes ...*gorgonia.Node) {
	for _, n := range nodes {
		v := Draw(r, n.Value().Size())
		for i := range v {
			v[i] = float64(float32(v[i] * scale))
		}
		Set(n, v)
	}
}

// Run evaluates the expression graph of the first node with a TapeMachine
// and returns the values of nodes.
func Run(t testing.TB, nodes ...*gorgonia.Node) [][]float64 {
	t.Helper()
	vm := gorgonia.NewTapeMachine(nodes[0].Graph())
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	out := make([][]float64, len(nodes))
	for i, n := range nodes {
		out[i] = Floats(n.Value())
	}
	return out
}

// Mismatch returns the first index where got and want differ by more than
// tol relative to max(1, |want|), or -1. Lengths that differ give 0.
func Mismatch(got, want []float64, tol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			return i
		}
	}
	return -1
}

// Expect fails the test when got and want differ by more than tol (see
// Mismatch), naming what was compared.
func Expect(t testing.TB, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	if i := Mismatch(got, want, tol); i >= 0 {
		t.Errorf("%s[%d] = %.10g, want %.10g (tol %g)\ngot  %.6g\nwant %.6g", what, i, got[i], want[i], tol, got, want)
	}
}

// SparseFeatures draws a rows x cols matrix with about half its entries zero
// (but a non-zero in every row) and returns it dense and as CSR, for
// checking ForwardSparse against Forward.
func SparseFeatures(r *rand.Rand, rows, cols int) (dense []float64, indptr []int64, indices []int32, values []float32) {
	dense = Draw(r, rows*cols)
	indptr = []int64{0}
	for i := range rows {
		for j := range cols {
			if r.IntN(2) == 0 && j != i%cols {
				dense[i*cols+j] = 0
				continue
			}
			indices = append(indices, int32(j))
			values = append(values, float32(dense[i*cols+j]))
		}
		indptr = append(indptr, int64(len(indices)))
	}
	return dense, indptr, indices, values
}
