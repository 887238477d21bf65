package linkpred

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAliasExact reads the probability of every item back from the table
// and compares it with its weight's share.
func TestAliasExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	cases := [][]float64{{1}, {0, 3}, {1, 1, 1, 1}, {5, 0, 0, 1e-9, 2}}
	for range 20 {
		w := make([]float64, 1+rng.IntN(300))
		for i := range w {
			if rng.IntN(4) > 0 {
				w[i] = math.Pow(float64(rng.IntN(1000)), 0.75)
			}
		}
		cases = append(cases, w)
	}
	for ci, w := range cases {
		tab := newAlias(w)
		var sum float64
		for _, x := range w {
			sum += x
		}
		if sum == 0 {
			if tab != nil {
				t.Errorf("case %d: all weights zero but a table", ci)
			}
			continue
		}
		m := float64(len(tab.slots))
		got := make([]float64, len(w))
		for j, sl := range tab.slots {
			keep := float64(sl.keep) / (1 << 32)
			got[j] += keep / m
			got[sl.alias] += (1 - keep) / m
		}
		for i := range w {
			// 32-bit keep probabilities: within 2^-32 per slot.
			if want := w[i] / sum; math.Abs(got[i]-want) > 1e-9 || (w[i] == 0 && got[i] != 0) {
				t.Errorf("case %d: item %d has probability %g, want %g", ci, i, got[i], want)
			}
		}
	}
}

// TestContains checks the branch-free search against a scan on sorted rows
// with repeats.
func TestContains(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	for range 2000 {
		row := make([]int32, rng.IntN(40))
		for i := range row {
			row[i] = int32(rng.IntN(50)) - 5
		}
		sortInt32(row)
		for v := int32(-7); v < 47; v++ {
			want := false
			for _, x := range row {
				want = want || x == v
			}
			if got := contains(row, v); got != want {
				t.Fatalf("contains(%v, %d) = %v", row, v, got)
			}
		}
	}
	if contains(nil, 0) {
		t.Error("contains(nil, 0)")
	}
}

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
