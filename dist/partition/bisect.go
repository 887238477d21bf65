package partition

import (
	"math"
	"math/rand/v2"
)

// bisection is a two-way split of a wgraph with, for every vertex, the
// weight of its edges to its own side (id) and to the other side (ed).
type bisection struct {
	g      *wgraph
	side   []int8
	id, ed []int64
	w      [2]int64 // vertex weight of each side
	target [2]float64
	maxW   [2]int64
	stamp  []uint32
	locked []bool
	heap   [2]gainHeap
}

func newBisection(g *wgraph, side []int8, target [2]float64, maxW [2]int64, buf *scratch) *bisection {
	b := &bisection{g: g, side: side, target: target, maxW: maxW,
		id: make([]int64, g.n()), ed: make([]int64, g.n()),
		stamp: make([]uint32, g.n()), locked: make([]bool, g.n()), heap: buf.heaps}
	for s := range b.heap {
		b.heap[s].reset()
	}
	for v := range g.n() {
		b.w[side[v]] += int64(g.vw[v])
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if side[g.adj[p]] == side[v] {
				b.id[v] += int64(g.ew[p])
			} else {
				b.ed[v] += int64(g.ew[p])
			}
		}
	}
	return b
}

func (b *bisection) gain(v int32) int64 { return b.ed[v] - b.id[v] }

func (b *bisection) cut() int64 {
	var c int64
	for _, x := range b.ed {
		c += x
	}
	return c / 2
}

// excess is how far the sides are over their limits, 0 when balanced.
func (b *bisection) excess() int64 {
	return max(b.w[0]-b.maxW[0], 0) + max(b.w[1]-b.maxW[1], 0)
}

// skew is the distance of side 0 from its target weight.
func (b *bisection) skew() float64 { return math.Abs(float64(b.w[0]) - b.target[0]) }

// fits reports whether v may change sides without overfilling the other.
func (b *bisection) fits(v int32) bool {
	to := 1 - b.side[v]
	return b.w[to]+int64(b.g.vw[v]) <= b.maxW[to]
}

// move puts v on the other side and updates the degrees; afterwards every
// unlocked neighbour gets a fresh heap entry when push is set.
func (b *bisection) move(v int32, push bool) {
	g := b.g
	from := b.side[v]
	to := 1 - from
	b.side[v] = to
	b.w[from] -= int64(g.vw[v])
	b.w[to] += int64(g.vw[v])
	b.id[v], b.ed[v] = b.ed[v], b.id[v]
	for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
		u, w := g.adj[p], int64(g.ew[p])
		if b.side[u] == to {
			b.id[u] += w
			b.ed[u] -= w
		} else {
			b.ed[u] += w
			b.id[u] -= w
		}
		if push && !b.locked[u] {
			b.stamp[u]++
			if b.ed[u] > 0 {
				b.heap[b.side[u]].push(gainItem{b.gain(u), u, b.stamp[u]})
			}
		}
	}
}

// popCurrent drops stale entries and returns the best current vertex of
// heap s, or -1.
func (b *bisection) popCurrent(s int) int32 {
	h := &b.heap[s]
	for h.len() > 0 {
		it := h.top()
		if it.stamp == b.stamp[it.v] && !b.locked[it.v] && b.side[it.v] == int8(s) {
			return it.v
		}
		h.pop()
	}
	return -1
}

// rebalance moves vertices off an overfull side, best gain first (interior
// vertices too), until it fits or nothing can move.
func (b *bisection) rebalance() {
	for s := range int8(2) {
		if b.w[s] <= b.maxW[s] {
			continue
		}
		h := &b.heap[s]
		h.reset()
		for v := range int32(b.g.n()) {
			if b.side[v] == s {
				b.stamp[v]++
				h.push(gainItem{b.gain(v), v, b.stamp[v]})
			}
		}
		for b.w[s] > b.maxW[s] && h.len() > 0 {
			it := h.pop()
			v := it.v
			if it.stamp != b.stamp[v] || b.side[v] != s || !b.fits(v) {
				continue
			}
			b.move(v, false)
			for p := b.g.xadj[v]; p < b.g.xadj[v+1]; p++ {
				if u := b.g.adj[p]; b.side[u] == s {
					b.stamp[u]++
					h.push(gainItem{b.gain(u), u, b.stamp[u]})
				}
			}
		}
		h.reset()
	}
}

// refine runs boundary Fiduccia-Mattheyses passes: each pass moves
// unlocked boundary vertices one at a time, best gain first, among moves
// that keep the sides within their limits, and keeps the best prefix of the
// moves (lowest cut, then closest to the target weights). It stops after a
// pass that found nothing better.
func (b *bisection) refine(passes int) {
	g := b.g
	limit := min(max(g.n()/50, 50), 300)
	var moves []int32
	for range passes {
		for s := range b.heap {
			b.heap[s].reset()
		}
		for v := range int32(g.n()) {
			if b.ed[v] > 0 {
				b.stamp[v]++
				b.heap[b.side[v]].push(gainItem{b.gain(v), v, b.stamp[v]})
			}
		}
		cut := b.cut()
		bestCut, bestSkew, best := cut, b.skew(), 0
		moves = moves[:0]
		for since := 0; since < limit; since++ {
			v := b.pick()
			if v < 0 {
				break
			}
			cut -= b.gain(v)
			b.locked[v] = true
			b.move(v, true)
			moves = append(moves, v)
			if sk := b.skew(); cut < bestCut || cut == bestCut && sk < bestSkew {
				bestCut, bestSkew, best = cut, sk, len(moves)
				since = -1
			}
		}
		for i := len(moves) - 1; i >= best; i-- {
			b.move(moves[i], false)
		}
		for _, v := range moves {
			b.locked[v] = false
		}
		if best == 0 {
			break
		}
	}
}

// pick pops the move with the highest gain among the two sides' best
// vertices that fit; vertices that do not fit are dropped for this pass.
func (b *bisection) pick() int32 {
	for {
		v0, v1 := b.popCurrent(0), b.popCurrent(1)
		if v0 < 0 && v1 < 0 {
			return -1
		}
		s, v := 0, v0
		if v0 < 0 || v1 >= 0 && (b.gain(v1) > b.gain(v0) || b.gain(v1) == b.gain(v0) && b.w[1]-int64(b.target[1]) > b.w[0]-int64(b.target[0])) {
			s, v = 1, v1
		}
		b.heap[s].pop()
		if b.fits(v) {
			return v
		}
	}
}

// grow is greedy graph growing: starting from a random vertex, side 0
// repeatedly takes the side-1 vertex that lowers the cut most, jumping to
// a random vertex when its frontier is empty, until it reaches its target.
func grow(g *wgraph, target [2]float64, maxW [2]int64, rng *rand.Rand) []int8 {
	n := g.n()
	side := make([]int8, n)
	for i := range side {
		side[i] = 1
	}
	conn := make([]int64, n) // weight of v's edges into side 0
	deg := make([]int64, n)
	stamp := make([]uint32, n)
	for v := range n {
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			deg[v] += int64(g.ew[p])
		}
	}
	order := rng.Perm(n)
	next := 0
	var h gainHeap
	var w0 int64
	for float64(w0) < target[0] {
		if h.len() == 0 {
			for next < n && side[order[next]] == 0 {
				next++
			}
			if next == n {
				break
			}
			v := int32(order[next])
			next++
			h.push(gainItem{2*conn[v] - deg[v], v, stamp[v]})
		}
		it := h.pop()
		v := it.v
		if side[v] == 0 || it.stamp != stamp[v] || w0+int64(g.vw[v]) > maxW[0] {
			continue
		}
		side[v] = 0
		w0 += int64(g.vw[v])
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if u := g.adj[p]; side[u] == 1 {
				conn[u] += int64(g.ew[p])
				stamp[u]++
				h.push(gainItem{2*conn[u] - deg[u], u, stamp[u]})
			}
		}
	}
	return side
}

// coarsenTo is the size below which bisect stops coarsening.
const coarsenTo = 100

// bisect splits g into side 0, of about frac of the vertex weight, and side
// 1, each side at most (1+eps) times its target: multilevel, with
// heavy-edge coarsening, greedy growing on the coarsest graph (several
// tries, the best kept) and FM refinement at every level on the way back.
func bisect(g *wgraph, frac, eps float64, rng *rand.Rand, buf *scratch) []int8 {
	total := g.totalVW()
	target := [2]float64{float64(total) * frac, float64(total) * (1 - frac)}
	limits := func(h *wgraph, finest bool) [2]int64 {
		var m [2]int64
		var heaviest int32
		if !finest {
			for _, w := range h.vw {
				heaviest = max(heaviest, w)
			}
		}
		for s := range m {
			m[s] = max(int64(math.Ceil(target[s]*(1+eps))), int64(math.Ceil(target[s]))+int64(heaviest))
		}
		return m
	}
	levels := []*wgraph{g}
	var cmaps [][]int32
	maxVW := int32(max(1, 1.5*float64(total)/coarsenTo))
	for cur := g; cur.n() > coarsenTo; {
		c, cmap := coarsen(cur, rng, maxVW, buf)
		if c.n() == cur.n() {
			break
		}
		levels, cmaps = append(levels, c), append(cmaps, cmap)
		if float64(c.n()) > 0.9*float64(cur.n()) {
			break
		}
		cur = c
	}
	coarsest := levels[len(levels)-1]
	maxW := limits(coarsest, len(levels) == 1)
	tries := 8
	if coarsest.n() > 5000 {
		tries = 2
	}
	var side []int8
	var bestCut, bestExcess int64
	for t := range tries {
		s := grow(coarsest, target, maxW, rng)
		b := newBisection(coarsest, s, target, maxW, buf)
		b.rebalance()
		b.refine(4)
		buf.heaps = b.heap
		if c, x := b.cut(), b.excess(); t == 0 || x < bestExcess || x == bestExcess && c < bestCut {
			side, bestCut, bestExcess = s, c, x
		}
	}
	for l := len(levels) - 2; l >= 0; l-- {
		h := levels[l]
		fine := make([]int8, h.n())
		for v, c := range cmaps[l] {
			fine[v] = side[c]
		}
		side = fine
		b := newBisection(h, side, target, limits(h, l == 0), buf)
		b.rebalance()
		b.refine(8)
		buf.heaps = b.heap
	}
	return side
}
