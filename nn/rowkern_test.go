package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowKernels checks that every row kernel gives the bits of its Go
// loop (useRowAVX2 off) on the same inputs, for widths that take the
// 16- and 32-column blocks, the 8-column one, and both, and inputs with
// zeros of both signs, NaN and infinities.
func TestRowKernels(t *testing.T) {
	if !useRowAVX2 {
		t.Skip("no AVX2 kernels in this build or on this processor")
	}
	r := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40}
	mk := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			if r.IntN(20) == 0 {
				s[i] = special[r.IntN(len(special))]
			} else {
				s[i] = float32(r.NormFloat64())
			}
		}
		return s
	}
	mk64 := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		return s
	}
	defer func() { useRowAVX2 = true }()
	for _, f := range []int{8, 16, 24, 32, 40, 48, 64, 96} {
		for _, rows := range []int{0, 1, 3, 17, 260} {
			x, u, m, a, c, b := mk(rows*f), mk(rows*f), mk(f), mk(f), mk(f), mk(f)
			mean := mk64(f)
			check := func(what string, kernel func() []uint64) {
				t.Helper()
				got := kernel()
				useRowAVX2 = false
				want := kernel()
				useRowAVX2 = true
				for i := range want {
					if got[i] != want[i] && !(isNaNBits(got[i]) && isNaNBits(want[i])) {
						t.Fatalf("%s f=%d rows=%d: element %d is %#x, the Go loop gives %#x", what, f, rows, i, got[i], want[i])
					}
				}
			}
			check("addColSums", func() []uint64 {
				p := append([]float64(nil), mean...)
				addColSums(p, x, f)
				return bits64(p)
			})
			check("addColSqDev", func() []uint64 {
				p := make([]float64, f)
				addColSqDev(p, x, mean, f)
				return bits64(p)
			})
			check("addDySums", func() []uint64 {
				ps, px := append([]float64(nil), mean...), make([]float64, f)
				addDySums(ps, px, x, u, f)
				return append(bits64(ps), bits64(px)...)
			})
			check("addColSumsT", func() []uint64 {
				p := append([]float32(nil), b...)
				addColSumsT(p, x, f)
				return bits32(p)
			})
			for _, relu := range []bool{false, true} {
				check("shiftRows", func() []uint64 {
					y := make([]float32, len(x))
					shiftRows(y, x, m, a, b, f, relu)
					return bits32(y)
				})
			}
			check("affineRowsDy", func() []uint64 {
				y := make([]float32, len(x))
				affineRowsDy(y, u, x, m, a, c, b, f)
				return bits32(y)
			})
			check("addBiasRows", func() []uint64 {
				y := append([]float32(nil), x...)
				addBiasRows(y, b, f)
				return bits32(y)
			})
			check("reluGrad", func() []uint64 {
				y := mk(len(x) + 5)
				reluGrad(y, append(x, 1, -1, 0, 2, 3), append(u, 1, 2, 3, 4, 5))
				return bits32(y)
			})
		}
	}
}

func bits64(s []float64) []uint64 {
	out := make([]uint64, len(s))
	for i, v := range s {
		out[i] = math.Float64bits(v)
	}
	return out
}

func bits32(s []float32) []uint64 {
	out := make([]uint64, len(s))
	for i, v := range s {
		out[i] = uint64(math.Float32bits(v))
	}
	return out
}

// isNaNBits reports whether b, the bits of a float32 (below 1<<32) or of a
// float64, is a NaN; NaN payloads may differ between the loops.
func isNaNBits(b uint64) bool {
	if b < 1<<32 {
		return math.IsNaN(float64(math.Float32frombits(uint32(b))))
	}
	return math.IsNaN(math.Float64frombits(b))
}
