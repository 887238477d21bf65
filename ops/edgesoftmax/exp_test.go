package edgesoftmax

import (
	"math"
	"testing"
)

// exp1 is e^x for x <= 0 through expSum.
func exp1(x float64) float64 {
	var o [1]float64
	var s [1]float64
	expSum(o[:], []float64{x}, []float64{0}, s[:])
	if o[0] != s[0] && !math.IsNaN(o[0]) {
		panic("expSum: sum differs from value")
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
	// float32 rows round the float64 exponential.
	o, s := make([]float32, 2), make([]float64, 2)
	expSum(o, []float32{-1, 3}, []float32{0, 5}, s)
	if o[0] != float32(math.Exp(-1)) || o[1] != float32(math.Exp(-2)) {
		t.Errorf("float32 row %v, want [%v %v]", o, float32(math.Exp(-1)), float32(math.Exp(-2)))
	}
}
