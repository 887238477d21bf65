package kerneltest

import (
	"math/rand/v2"

	"github.com/gnngo/gnn/internal/num"
)

// Uniform returns n values drawn uniformly from [lo, hi).
func Uniform[T num.Float](r *rand.Rand, n int, lo, hi float64) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(lo + (hi-lo)*r.Float64())
	}
	return x
}

// Tolerance is the relative tolerance, against max(1, |want|), of T
// against an oracle that adds in the same order: a few ulps of headroom,
// for compilers that fuse multiply-adds (float32 ulp 6e-8, float64 1e-16).
func Tolerance[T num.Float]() float64 {
	var x T
	if _, ok := any(x).(float32); ok {
		return 1e-5
	}
	return 1e-12
}
