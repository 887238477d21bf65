// Package layertest holds what the tests of gnn's layers share on top of
// internal/gradcheck: the forward tolerance, randomised parameters, sparse
// features, fixture graphs, the gradient check of a whole layer in both
// dtypes, and the checks every layer's tests repeat: constructor and Forward
// errors, dropout in training and evaluation, two unnamed layers staying
// apart, and seeded initialisation.
//
// It is for tests only; it imports package testing.
package layertest

import (
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// Tol is the tolerance of forward values against a float64 reference,
// relative to max(1, |want|): float64 layers agree to rounding (a few ulps
// of sums of a handful of terms), float32 ones to float32 rounding.
func Tol(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 2e-5
	}
	return 1e-12
}

// Randomize overwrites every element of the nodes' values with scale times
// a gradcheck.Draw, so that a reference sees non-trivial parameters (a
// non-zero bias).
func Randomize(r *rand.Rand, scale float64, nodes ...*gorgonia.Node) {
	for _, n := range nodes {
		v := gradcheck.Draw(r, n.Value().Size())
		for i := range v {
			v[i] = float64(float32(v[i] * scale))
		}
		gradcheck.Set(n, v)
	}
}

// SparseFeatures draws a rows x cols matrix with about half its entries zero
// (but a non-zero in every row) and returns it dense and as CSR, for
// checking ForwardSparse against Forward.
func SparseFeatures(r *rand.Rand, rows, cols int) (dense []float64, indptr []int64, indices []int32, values []float32) {
	dense = gradcheck.Draw(r, rows*cols)
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

// MatMul returns the n x m product of a (n x k) and b (k x m), row-major.
func MatMul(a, b []float64, n, k, m int) []float64 {
	c := make([]float64, n*m)
	for i := range n {
		for j := range m {
			for l := range k {
				c[i*m+j] += a[i*k+l] * b[l*m+j]
			}
		}
	}
	return c
}

// Btoi is 1 for true and 0 for false, for counting a layer's optional
// parameters.
func Btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
