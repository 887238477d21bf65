package partition

// gainHeap is a max-heap of vertices by gain, ties to the smaller vertex,
// with lazy deletion: an entry is current while its stamp matches the
// vertex's stamp, and callers skip the others.
type gainHeap struct{ items []gainItem }

type gainItem struct {
	gain  int64
	v     int32
	stamp uint32
}

func (h *gainHeap) before(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return a.gain > b.gain || a.gain == b.gain && a.v < b.v
}

func (h *gainHeap) len() int { return len(h.items) }

func (h *gainHeap) reset() { h.items = h.items[:0] }

func (h *gainHeap) push(it gainItem) {
	h.items = append(h.items, it)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.before(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *gainHeap) top() gainItem { return h.items[0] }

func (h *gainHeap) pop() gainItem {
	it := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.before(l, m) {
			m = l
		}
		if r < last && h.before(r, m) {
			m = r
		}
		if m == i {
			return it
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
