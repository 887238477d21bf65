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
