package num

import (
	"math/rand/v2"
	"testing"
)

// TestDot8 checks that Dot8 adds the products in the order of a plain loop
// from the first product, bit for bit, in float32 and float64.
func TestDot8(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		var a, b [8]float64
		var a32, b32 [8]float32
		for i := range a {
			a[i], b[i] = r.NormFloat64()*1e3, r.NormFloat64()*1e-3
			a32[i], b32[i] = float32(a[i]), float32(b[i])
		}
		want, want32 := a[0]*b[0], a32[0]*b32[0]
		for i := 1; i < 8; i++ {
			want += a[i] * b[i]
			want32 += a32[i] * b32[i]
		}
		if got := Dot8(&a, &b); got != want {
			t.Fatalf("Dot8(%v, %v) = %v, want %v", a, b, got, want)
		}
		if got := Dot8(&a32, &b32); got != want32 {
			t.Fatalf("Dot8(%v, %v) = %v, want %v in float32", a32, b32, got, want32)
		}
	}
}
