package parallel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestSumCoversRows checks that every row is summed exactly once: with
// integer terms the sums are exact.
func TestSumCoversRows(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 1025, 70000} {
		out := []float64{-1, -1}
		Sum(out, n, 16, func(p []float64, lo, hi int) {
			for i := lo; i < hi; i++ {
				p[0]++
				p[1] += float64(i)
			}
		})
		if want := []float64{float64(n), float64(n) * float64(n-1) / 2}; !slices.Equal(out, want) {
			t.Errorf("n=%d: got %v, want %v", n, out, want)
		}
	}
}

// TestSumDeterministic checks identical bits for GOMAXPROCS 1, 2 and 3 on
// float32 terms whose sum depends on the order of additions.
func TestSumDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 100000)
	for i := range x {
		x[i] = float32(rng.NormFloat64()) * float32(1+i%1000)
	}
	var first []float32
	for _, procs := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("procs=", procs), func(t *testing.T) {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			out := make([]float32, 1)
			Sum(out, len(x), 100, func(p []float32, lo, hi int) {
				for _, v := range x[lo:hi] {
					p[0] += v
				}
			})
			if first == nil {
				first = out
			} else if out[0] != first[0] {
				t.Errorf("sum %v, want %v as with GOMAXPROCS=1", out[0], first[0])
			}
		})
	}
}
