package linkpred

import (
	"math"

	"github.com/gnngo/gnn/internal/seeded"
)

// aliasTable draws item i of a discrete distribution with probability
// weight[i]/sum(weight) in O(1) (Walker's alias method, Vose's
// construction). An item of weight zero is never drawn. Each slot's keep
// probability is stored to 32 bits, so each item's probability is exact to
// within 2^-32 of its slot's share; a draw reads one 8-byte slot.
type aliasTable struct {
	slots []aliasSlot
}

// aliasSlot is slot j of an alias table: a draw landing on it gives item j
// when a uniform 32-bit draw is below keep, else item alias.
type aliasSlot struct {
	keep  uint32
	alias int32
}

// newAlias builds the table of weight, or returns nil when no weight is
// positive. Weights must be finite and non-negative.
func newAlias(weight []float64) *aliasTable {
	var sum float64
	first := -1
	for i, w := range weight {
		if w > 0 {
			sum += w
			if first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return nil
	}
	m := len(weight)
	prob, alias := make([]float64, m), make([]int32, m)
	scaled := make([]float64, m)
	var small, large []int32
	for j, w := range weight {
		scaled[j] = w * float64(m) / sum
		if scaled[j] < 1 {
			small = append(small, int32(j))
		} else {
			large = append(large, int32(j))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		prob[s], alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left has scaled weight 1 up to rounding; an item of weight
	// zero among it (possible only through rounding) still gets none.
	for _, j := range append(small, large...) {
		prob[j], alias[j] = 1, j
		if weight[j] <= 0 {
			prob[j], alias[j] = 0, int32(first)
		}
	}
	t := &aliasTable{slots: make([]aliasSlot, m)}
	for j, p := range prob {
		keep := uint32(math.MaxUint32) // p = 1: the alias is the item itself
		if p < 1 {
			keep = uint32(p * (1 << 32))
		}
		t.slots[j] = aliasSlot{keep: keep, alias: alias[j]}
	}
	return t
}

// index returns the slot of a draw, the first of the two values a draw
// takes from s.
func (t *aliasTable) index(s *seeded.Stream) uint64 { return s.Below(uint64(len(t.slots))) }

// draw returns an item.
func (t *aliasTable) draw(s *seeded.Stream) int32 {
	j := t.index(s)
	if sl := t.slots[j]; s.Uint32() >= sl.keep {
		return sl.alias
	}
	return int32(j)
}
