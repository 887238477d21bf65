package linkpred

import "math"

// aliasTable draws index i of a discrete distribution with probability
// weight[i]/sum(weight) in O(1) (Walker's alias method, Vose's
// construction), over the positive-weight items only, so that an item of
// weight zero is never drawn whatever the rounding.
type aliasTable struct {
	slots []aliasSlot
}

// aliasSlot is one slot of an alias table, packed so that a draw reads one
// cache line: slot j gives item when a uniform 64-bit draw is below keep,
// else alias.
type aliasSlot struct {
	keep        uint64
	item, alias int32
}

// newAlias builds the table of weight, or returns nil when no weight is
// positive. Weights must be finite and non-negative.
func newAlias(weight []float64) *aliasTable {
	var items []int32
	var sum float64
	for i, w := range weight {
		if w > 0 {
			items = append(items, int32(i))
			sum += w
		}
	}
	m := len(items)
	if m == 0 {
		return nil
	}
	prob, alias := make([]float64, m), make([]int32, m)
	scaled := make([]float64, m)
	var small, large []int32
	for j, it := range items {
		scaled[j] = weight[it] * float64(m) / sum
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
	// What is left has scaled weight 1 up to rounding.
	for _, j := range append(small, large...) {
		prob[j], alias[j] = 1, j
	}
	t := &aliasTable{slots: make([]aliasSlot, m)}
	for j, p := range prob {
		keep := uint64(math.MaxUint64) // prob 1: the alias is the item itself
		if p < 1 {
			keep = uint64(p * (1 << 64))
		}
		t.slots[j] = aliasSlot{keep: keep, item: items[j], alias: items[alias[j]]}
	}
	return t
}

// draw returns an item.
func (t *aliasTable) draw(s *stream) int32 {
	sl := &t.slots[s.below(uint64(len(t.slots)))]
	if s.p.Uint64() < sl.keep {
		return sl.item
	}
	return sl.alias
}
