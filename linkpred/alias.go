package linkpred

// aliasTable draws index i of a discrete distribution with probability
// weight[i]/sum(weight) in O(1) (Walker's alias method, Vose's
// construction), over the positive-weight items only, so that an item of
// weight zero is never drawn whatever the rounding.
type aliasTable struct {
	items []int32   // the positive-weight items
	prob  []float64 // the chance of keeping slot j's own item
	alias []int32   // the slot whose item replaces slot j's otherwise
}

// newAlias builds the table of weight, or returns nil when no weight is
// positive. Weights must be finite and non-negative.
func newAlias(weight []float64) *aliasTable {
	t := &aliasTable{}
	var sum float64
	for i, w := range weight {
		if w > 0 {
			t.items = append(t.items, int32(i))
			sum += w
		}
	}
	m := len(t.items)
	if m == 0 {
		return nil
	}
	t.prob, t.alias = make([]float64, m), make([]int32, m)
	scaled := make([]float64, m)
	var small, large []int32
	for j, it := range t.items {
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
		t.prob[s], t.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left has scaled weight 1 up to rounding.
	for _, j := range append(small, large...) {
		t.prob[j], t.alias[j] = 1, j
	}
	return t
}

// draw returns an item.
func (t *aliasTable) draw(s *stream) int32 {
	j := s.below(uint64(len(t.items)))
	if s.float() >= t.prob[j] {
		j = uint64(t.alias[j])
	}
	return t.items[j]
}
