package num

import (
	"math"
	"testing"
)

// exp1 is e^x for x <= 0 through ExpSum.
func exp1(x float64) float64 {
	var o [1]float64
	var s [1]float64
	ExpSum(o[:], []float64{x}, []float64{0}, s[:])
	if o[0] != s[0] && !math.IsNaN(o[0]) {
		panic("ExpSum: sum differs from value")
	}
	return o[0]
}

func TestExpSum(t *testing.T) {
	t.Parallel()
	worst := 0.0
	for i := range 1_000_000 {
		x := -float64(i) * 708 / 1_000_000
		got, want := exp1(x), math.Exp(x)
		if d := math.Abs(got-want) / want; d > worst {
			worst = d
		}
	}
	// The table and polynomial are good to about 2 ulp.
	if worst > 5e-16 {
		t.Errorf("worst relative error %g, want <= 5e-16", worst)
	}
	for _, c := range []struct{ x, want float64 }{
		{0, 1},
		{math.Copysign(0, -1), 1},
		{-709, 0},
		{math.Inf(-1), 0},
	} {
		if got := exp1(c.x); got != c.want {
			t.Errorf("exp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := exp1(math.NaN()); !math.IsNaN(got) {
		t.Errorf("exp(NaN) = %v, want NaN", got)
	}
}

// TestExpSumFloat32 checks the shorter polynomial of float32 rows: the
// float64 value it sums is within 1e-10 relative of e^x, and the float32
// result is e^x correctly rounded or one ulp off.
func TestExpSumFloat32(t *testing.T) {
	t.Parallel()
	const n = 1 << 16
	x := make([]float32, n)
	for i := range x {
		x[i] = -float32(i) * 87 / n // down to the smallest normal float32
	}
	o, s := make([]float32, n), make([]float64, n)
	ExpSum(o, x, make([]float32, n), s)
	for i, v := range x {
		want := math.Exp(float64(v))
		if d := math.Abs(s[i]-want) / want; d > 1e-10 {
			t.Fatalf("exp(%v): sum %v, relative error %g", v, s[i], d)
		}
		if d := math.Abs(float64(o[i])-want) / want; d > 1.2e-7 {
			t.Fatalf("exp(%v) = %v, want %v", v, o[i], float32(want))
		}
	}
}
