package gradcheck

import (
	"math"
	"testing"
)

// Within reports whether got is within tol of want relative to
// max(1, |want|). A NaN is within nothing, and an infinity only within
// itself.
func Within(got, want, tol float64) bool {
	if got == want {
		return true
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return false
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want)) // false for NaN
}

// Mismatch returns the first index where got and want are not Within tol,
// or -1. Lengths that differ give 0.
func Mismatch(got, want []float64, tol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if !Within(got[i], want[i], tol) {
			return i
		}
	}
	return -1
}

// Differ reports whether a and b, of one length and finite, differ by more
// than tol relative to max(1, |b|) at some element: the check that two
// computations did not give the same result.
func Differ(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	differ := false
	for i := range a {
		if math.IsNaN(a[i]) || math.IsInf(a[i], 0) || math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return false
		}
		differ = differ || !Within(a[i], b[i], tol)
	}
	return differ
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
