package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestMaskAccel checks that applyMask's vector kernel gives the Go loop's
// bits, with and without ReLU, on lengths that end inside a group of 16 and
// inside a hash, on enough elements for several parallel tasks, at
// probabilities whose threshold is 0, ordinary, and over 16 bits (which
// the Go loop takes), on infinities, NaN, -0 and subnormals, at
// GOMAXPROCS 1 and 2.
func TestMaskAccel(t *testing.T) {
	if !useMaskAVX2 {
		t.Skip("no vector dropout kernel on this machine")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)), 0, 1e-40, -1e-40}
	for _, n := range []int{0, 1, 3, 15, 16, 17, 63, 64, 65, 4001, 70001} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			if rng.IntN(8) == 0 {
				x[i] = special[rng.IntN(len(special))]
			}
		}
		for _, p := range []float64{1e-7, 0.1, 0.5, 0.9, 1 - 1e-7} {
			for _, relu := range []bool{false, true} {
				for _, procs := range []int{1, 2} {
					name := fmt.Sprintf("n=%d/p=%g/relu=%v/procs=%d", n, p, relu, procs)
					old := runtime.GOMAXPROCS(procs)
					want, got := make([]float32, n), make([]float32, n)
					useMaskAVX2 = false
					applyMask(want, x, p, 9, 5, true, relu)
					useMaskAVX2 = true
					applyMask(got, x, p, 9, 5, true, relu)
					runtime.GOMAXPROCS(old)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s: element %d of %v is %v (%#x), the Go loop's %v (%#x)", name, i, x[i], got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
						}
					}
				}
			}
		}
	}
}

// BenchmarkApplyMask times dropout of a CiteSeer-sized dense input, 3327 x
// 3703 float32, while training, with the vector kernel where there is one
// (accel=true) and the Go loop.
func BenchmarkApplyMask(b *testing.B) {
	const n = 3327 * 3703
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for _, accel := range []bool{true, false} {
		if accel && !useMaskAVX2 {
			continue
		}
		b.Run(fmt.Sprintf("accel=%v", accel), func(b *testing.B) {
			old := useMaskAVX2
			useMaskAVX2 = accel
			defer func() { useMaskAVX2 = old }()
			b.ReportAllocs()
			for b.Loop() {
				applyMask(y, x, 0.5, 1, 2, true, false)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}
