package linkpred

import (
	"fmt"
	"math"
	"sync"

	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/seeded"
)

// space is the set of candidates a corrupted endpoint is drawn from.
type space struct {
	n      int         // candidates 0..n-1
	alias  *aliasTable // weighted draws (candidates are node IDs); nil: uniform
	weight []float64   // the weight of each candidate; nil: uniform
	node   []int32     // the node of each candidate; nil: the candidate itself
	skip   int         // a candidate never drawn (InBatch: the positive), or -1
}

// size is the number of candidates that may be drawn.
func (sp *space) size() int {
	if sp.skip >= 0 {
		return sp.n - 1
	}
	return sp.n
}

// draw returns a candidate's node, drawn from the space's distribution.
func (sp *space) draw(s *seeded.Stream) int32 {
	if sp.alias != nil {
		return sp.alias.draw(s)
	}
	c := int(s.Below(uint64(sp.size())))
	if sp.skip >= 0 && c >= sp.skip {
		c++
	}
	if sp.node != nil {
		return sp.node[c]
	}
	return int32(c)
}

// Sides of a positive pair: a negative corrupts its destination (sideDst,
// keeping the source) or its source (sideSrc).
const (
	sideDst = 0
	sideSrc = 1
)

// core is the machinery the samplers share: per-positive streams, rejection
// of excluded pairs, and the enumeration fall-back.
type core struct {
	k              int
	corrupt        Corrupt
	numSrc, numDst int        // node ID bounds for the positives
	out, in        *adjacency // exclusion rows by source and by destination; nil: none
	noSelfLoops    bool
	distinct       bool
	tries          int
	inBatch        bool     // the spaces are the batch's other positives
	spaces         [2]space // candidates for sideDst and sideSrc
	group          int      // positives prepared together, 1..maxGroup
}

// rowOf returns the exclusion row of the kept endpoint fixed for a side.
func (c *core) rowOf(side int, fixed int32) []int32 {
	if side == sideDst && c.out != nil {
		return c.out.row(fixed)
	}
	if side == sideSrc && c.in != nil {
		return c.in.row(fixed)
	}
	return nil
}

// scanDistinct is the number of negatives per positive up to which
// duplicates are found by a scan rather than a set.
const scanDistinct = 32

// positiveGrain is the number of positives one goroutine draws for at a
// time.
const positiveGrain = 256

// group is the number of positives whose first reads (exclusion rows,
// alias slots) prepare loads together before their negatives are drawn;
// maxGroup bounds core.group.
const (
	group    = 32
	maxGroup = 64
)

// worker is the scratch state of one goroutine.
type worker struct {
	s       seeded.Stream
	sink    int32 // keeps prepare's loads
	streams [maxGroup]seeded.Stream
	lo, hi  [maxGroup]int64 // row bounds of a group
	seen    map[uint64]struct{}
	cache   [2]candidates
}

// candidates are the valid candidates of one side of one positive,
// enumerated when rejection sampling gives up.
type candidates struct {
	valid   bool
	nodes   []int32
	weights []float64
}

// negatives validates the positives and draws their negatives in parallel.
func (c *core) negatives(src, dst []int32, seed uint64) ([]int32, []int32, error) {
	if len(src) != len(dst) {
		return nil, nil, fmt.Errorf("linkpred: %d positive sources but %d destinations", len(src), len(dst))
	}
	for i := range src {
		if c.inBatch && c.out == nil && c.in == nil {
			if src[i] < 0 || dst[i] < 0 {
				return nil, nil, fmt.Errorf("linkpred: positive %d (%d -> %d) has a negative node ID", i, src[i], dst[i])
			}
			continue
		}
		if src[i] < 0 || int(src[i]) >= c.numSrc {
			return nil, nil, fmt.Errorf("linkpred: positive %d has source %d but the graph has %d source nodes", i, src[i], c.numSrc)
		}
		if dst[i] < 0 || int(dst[i]) >= c.numDst {
			return nil, nil, fmt.Errorf("linkpred: positive %d has destination %d but the graph has %d destination nodes", i, dst[i], c.numDst)
		}
	}
	n := len(src)
	if n > math.MaxInt/c.k {
		return nil, nil, fmt.Errorf("linkpred: %d positives times k = %d negatives overflows", n, c.k)
	}
	if c.inBatch && n == 1 {
		return nil, nil, fmt.Errorf("linkpred: in-batch negatives need at least 2 positives, got 1")
	}
	ns, nd := make([]int32, n*c.k), make([]int32, n*c.k)
	var mu sync.Mutex
	firstErr, errAt := error(nil), n
	parallel.For(n, positiveGrain, func(lo, hi int) {
		w := &worker{}
		sp := c.spaces
		if c.inBatch {
			sp[sideDst].node, sp[sideSrc].node = dst, src
			sp[sideDst].n, sp[sideSrc].n = n, n
		}
		for g0 := lo; g0 < hi; g0 += c.group {
			g1 := min(g0+c.group, hi)
			c.prepare(w, &sp, seed, g0, src[g0:g1], dst[g0:g1])
			for i := g0; i < g1; i++ {
				w.s = w.streams[i-g0]
				sp[sideDst].skip, sp[sideSrc].skip = -1, -1
				if c.inBatch {
					sp[sideDst].skip, sp[sideSrc].skip = i, i
				}
				if err := c.fill(w, i, src[i], dst[i], &sp, ns[i*c.k:(i+1)*c.k], nd[i*c.k:(i+1)*c.k]); err != nil {
					mu.Lock()
					if i < errAt {
						firstErr, errAt = err, i
					}
					mu.Unlock()
					return
				}
			}
		}
	})
	if firstErr != nil {
		return nil, nil, firstErr
	}
	return ns, nd, nil
}

// prepare keys the streams of the positives first..first+len(src)-1 and
// loads, stage by stage over the whole group, what their draws will read
// first: the bounds of their exclusion rows, then the rows' cache lines
// (every line of a row of up to 64 neighbours; the lines a search reads
// first in a longer one), then, for weighted spaces, the alias slot of
// each first draw. On a large graph each of these is a cache miss that
// depends on the one before; the group's loads of one stage are
// independent, so they overlap in the out-of-order window, where drawing
// positive by positive would wait for each miss in turn. The draws
// themselves are made afterwards by fill, from the streams kept here, so
// the negatives are those of positive-by-positive drawing.
func (c *core) prepare(w *worker, sp *[2]space, seed uint64, first int, src, dst []int32) {
	for j := range src {
		w.streams[j].Reset(seed, uint64(first+j))
	}
	var sum int32
	if c.out != nil {
		sum += w.touchRows(c.out, src)
	}
	if c.in != nil {
		sum += w.touchRows(c.in, dst)
	}
	// The first draw of a positive is its side's coin (CorruptEither),
	// then a candidate; a copy of its stream makes it here without
	// consuming it.
	if sp[sideDst].alias != nil || sp[sideSrc].alias != nil {
		for j := range src {
			s := w.streams[j]
			side := sideDst
			switch c.corrupt {
			case CorruptSrc:
				side = sideSrc
			case CorruptEither:
				if s.Coin() {
					side = sideSrc
				}
			}
			if t := sp[side].alias; t != nil {
				sum += t.slots[t.index(&s)].alias
			}
		}
	}
	w.sink += sum
}

// touchRows loads the rows of nodes of a: their bounds for every node, then
// the lines of every row, and returns a sum of what it read so that the
// loads are kept.
func (w *worker) touchRows(a *adjacency, nodes []int32) int32 {
	ptr := a.indptr
	for j, u := range nodes {
		w.lo[j], w.hi[j] = ptr[u], ptr[u+1]
	}
	var sum int32
	for j := range nodes {
		lo, hi := w.lo[j], w.hi[j]
		if lo == hi {
			continue
		}
		// Its first, quarter, middle, three-quarter and last
		// neighbour: at most 16 apart (a 64-byte line) up to 64.
		n := hi - lo
		r := a.idx[lo:hi]
		sum += r[0] + r[n/4] + r[n/2] + r[n-n/4-1] + r[n-1]
	}
	return sum
}

// fill draws the k negatives of positive i, (u, v), into ns and nd.
func (c *core) fill(w *worker, i int, u, v int32, sp *[2]space, ns, nd []int32) error {
	w.cache[0].valid, w.cache[1].valid = false, false
	if c.distinct && c.k > scanDistinct {
		if w.seen == nil {
			w.seen = make(map[uint64]struct{}, c.k)
		}
		clear(w.seen)
	}
	kept := [2]int32{u, v}
	if c.corrupt != CorruptEither && !c.distinct {
		return c.fillOneSide(w, i, u, v, sp, ns, nd, kept)
	}
	var rows [2][]int32
	if c.out != nil {
		rows[sideDst] = c.out.row(u)
	}
	if c.in != nil {
		rows[sideSrc] = c.in.row(v)
	}
	for j := range ns {
		side := sideDst
		switch c.corrupt {
		case CorruptSrc:
			side = sideSrc
		case CorruptEither:
			if w.s.Coin() {
				side = sideSrc
			}
		}
		// The first draw is tried here; pick makes the others.
		fixed := kept[side]
		x := sp[side].draw(&w.s)
		if w.cache[side].valid || !c.ok(w, side, fixed, x, rows[side], ns[:j], nd[:j]) {
			var err error
			if x, err = c.pick(w, side, fixed, rows[side], &sp[side], ns[:j], nd[:j], c.tries-1); err != nil {
				return fmt.Errorf("linkpred: positive %d (%d -> %d), negative %d: %w", i, u, v, j, err)
			}
		}
		if side == sideDst {
			ns[j], nd[j] = u, x
		} else {
			ns[j], nd[j] = x, v
		}
		if c.distinct && c.k > scanDistinct {
			w.seen[pack(ns[j], nd[j])] = struct{}{}
		}
	}
	return nil
}

// fillOneSide is fill for one corrupted side without Distinct: all k first
// draws are made before any is checked, so that their memory reads (alias
// slots, on a large graph) overlap rather than wait for one another.
func (c *core) fillOneSide(w *worker, i int, u, v int32, sp *[2]space, ns, nd []int32, kept [2]int32) error {
	side, out, other := sideDst, nd, ns
	if c.corrupt == CorruptSrc {
		side, out, other = sideSrc, ns, nd
	}
	fixed, space := kept[side], &sp[side]
	row := c.rowOf(side, fixed)
	for j := range out {
		out[j] = space.draw(&w.s)
	}
	for j, x := range out {
		other[j] = fixed
		// c.ok without Distinct, written out so that it inlines.
		if w.cache[side].valid || (c.noSelfLoops && x == fixed) || contains(row, x) {
			var err error
			if out[j], err = c.pick(w, side, fixed, row, space, nil, nil, c.tries-1); err != nil {
				return fmt.Errorf("linkpred: positive %d (%d -> %d), negative %d: %w", i, u, v, j, err)
			}
		}
	}
	return nil
}

// pick draws one corrupted endpoint for the kept endpoint fixed after a
// rejected draw: up to tries more draws from the space, then, for the rest
// of this positive and side, draws from the enumerated valid candidates,
// which follow the same distribution restricted to the valid ones.
func (c *core) pick(w *worker, side int, fixed int32, row []int32, sp *space, ns, nd []int32, tries int) (int32, error) {
	cs := &w.cache[side]
	if !cs.valid {
		for range tries {
			if x := sp.draw(&w.s); c.ok(w, side, fixed, x, row, ns, nd) {
				return x, nil
			}
		}
		c.enumerate(cs, w, side, fixed, row, sp, ns, nd)
	}
	for len(cs.nodes) > 0 {
		j := c.choose(cs, &w.s)
		x := cs.nodes[j]
		if !c.distinct {
			return x, nil
		}
		last := len(cs.nodes) - 1
		cs.nodes[j] = cs.nodes[last]
		cs.nodes = cs.nodes[:last]
		if cs.weights != nil {
			cs.weights[j] = cs.weights[last]
			cs.weights = cs.weights[:last]
		}
		if !c.dup(w, side, fixed, x, ns, nd) {
			return x, nil
		}
	}
	what := "destination"
	if side == sideSrc {
		what = "source"
	}
	if c.distinct && len(ns) > 0 {
		return 0, fmt.Errorf("no distinct valid negative %s is left after %d negatives: fewer than k = %d exist (Distinct)", what, len(ns), c.k)
	}
	return 0, fmt.Errorf("no valid negative %s: each of the %d candidates is excluded (an edge, a self-loop or of weight zero)", what, sp.size())
}

// ok reports whether corrupting to x gives a valid negative.
func (c *core) ok(w *worker, side int, fixed, x int32, row []int32, ns, nd []int32) bool {
	if c.noSelfLoops && x == fixed {
		return false
	}
	if contains(row, x) {
		return false
	}
	return !c.distinct || !c.dup(w, side, fixed, x, ns, nd)
}

// dup reports whether the negative (fixed, x) or (x, fixed) was drawn
// already for this positive.
func (c *core) dup(w *worker, side int, fixed, x int32, ns, nd []int32) bool {
	s, d := fixed, x
	if side == sideSrc {
		s, d = x, fixed
	}
	if c.k > scanDistinct {
		_, ok := w.seen[pack(s, d)]
		return ok
	}
	for j := range ns {
		if ns[j] == s && nd[j] == d {
			return true
		}
	}
	return false
}

// enumerate lists the valid candidates of one side of a positive.
func (c *core) enumerate(cs *candidates, w *worker, side int, fixed int32, row []int32, sp *space, ns, nd []int32) {
	cs.valid, cs.nodes, cs.weights = true, cs.nodes[:0], cs.weights[:0]
	for cand := range sp.n {
		if cand == sp.skip {
			continue
		}
		x := int32(cand)
		if sp.node != nil {
			x = sp.node[cand]
		}
		if sp.weight != nil && sp.weight[cand] <= 0 {
			continue
		}
		if !c.ok(w, side, fixed, x, row, ns, nd) {
			continue
		}
		cs.nodes = append(cs.nodes, x)
		if sp.weight != nil {
			cs.weights = append(cs.weights, sp.weight[cand])
		}
	}
	if sp.weight == nil {
		cs.weights = nil
	}
}

// choose returns the index of a candidate drawn with probability
// proportional to its weight (uniform without weights).
func (c *core) choose(cs *candidates, s *seeded.Stream) int {
	if cs.weights == nil {
		return int(s.Below(uint64(len(cs.nodes))))
	}
	var total float64
	for _, w := range cs.weights {
		total += w
	}
	r := s.Float() * total
	for j, w := range cs.weights {
		if r < w {
			return j
		}
		r -= w
	}
	return len(cs.weights) - 1
}
