package sampling

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/enum"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/seeded"
)

// Direction selects the edges sampled around a seed node.
type Direction int

const (
	// In samples in-edges u -> seed (DGL's edge_dir="in"): the block's
	// messages flow along the sampled edges, from u to the seed.
	In Direction = iota
	// Out samples out-edges seed -> v (DGL's edge_dir="out"): the block is
	// that of the reversed graph, its edges run from v to the seed, and
	// EdgeIDs still name the parent edges seed -> v.
	Out
)

// String returns "in" or "out".
func (d Direction) String() string {
	return enum.Name(d, "Direction", "in", "out")
}

// Options configures neighbour sampling. The zero value samples in-edges
// uniformly without replacement.
type Options struct {
	// Direction selects in-edges (the default) or out-edges.
	Direction Direction

	// Replace draws with replacement: every seed with at least one
	// candidate edge gets exactly fanout draws, repeats possible. Without
	// it a seed gets min(fanout, candidates) distinct edges.
	Replace bool

	// Weights, when not nil, holds one weight per parent edge (indexed by
	// edge ID): edges are drawn with probability proportional to their
	// weight, and edges of weight zero never. Without replacement the
	// edges are drawn one after the other, each in proportion to its
	// weight among those not yet drawn (DGL's prob). Weights must be finite
	// and non-negative; those of the edges visited are checked.
	Weights []float32

	// Exclude lists parent edge IDs that are never sampled (the batch's
	// positive edges in link prediction). Repeats are allowed.
	Exclude []int64
}

// Frontier is the edges sampled around a list of seed nodes, grouped by
// seed: seed Seeds[i]'s edges are positions Indptr[i] to Indptr[i+1]-1 of
// Neighbors (the other endpoint, a parent node ID) and EdgeIDs (the parent
// edge ID). ToBlock turns it into a Block. Users may build one themselves
// from any edges.
type Frontier struct {
	// NumNodes is the parent graph's node count.
	NumNodes  int
	Seeds     []int32
	Indptr    []int64
	Neighbors []int32
	EdgeIDs   []int64
}

// NumEdges returns the number of sampled edges.
func (f *Frontier) NumEdges() int { return len(f.Neighbors) }

// SampleNeighbors draws up to fanout edges of every seed node of the
// homogeneous graph g (DGL's sample_neighbors); fanout -1 takes every
// candidate edge, with or without Replace. The draws depend only on seed
// and on each seed node's position in seeds, whatever GOMAXPROCS is, and
// run in parallel over the seeds. Without replacement a seed's edges are
// listed in the order of g's CSC (CSR for Out) row, that is by increasing
// edge ID; with replacement in the order drawn. Seeds may repeat; each
// occurrence is sampled on its own.
//
// It returns an error for a graph that is not homogeneous, a fanout below
// -1, a seed out of range, a Weights slice whose length is not the edge
// count or a visited weight that is negative or not finite, and an
// excluded edge ID out of range.
func SampleNeighbors(g *graph.Graph, seeds []int32, fanout int, opts Options, seed uint64) (*Frontier, error) {
	s, err := newNeighborSampler(g, opts)
	if err != nil {
		return nil, err
	}
	return s.sample(seeds, fanout, seed, nil, nil)
}

// neighborSampler is SampleNeighbors' state for one graph and options,
// checked once and reused by MultiLayer.
type neighborSampler struct {
	g        *graph.Graph
	numNodes int
	view     *graph.Compressed // CSC for In, CSR for Out
	opts     Options
	exclude  []int64 // sorted, without repeats
	exPos    []int64 // the view positions of the excluded edges, sorted
	// exBuckets has bit b set when some position of exPos is in
	// [b<<exShift, (b+1)<<exShift): most rows are found free of
	// exclusions without a search. Nil for a few exclusions.
	exBuckets []uint64
}

// exShift is the log2 of the positions per bit of exBuckets, and
// exBucketsMin the number of exclusions from which they are kept.
const exShift, exBucketsMin = 6, 32

func newNeighborSampler(g *graph.Graph, opts Options) (*neighborSampler, error) {
	if g == nil {
		return nil, fmt.Errorf("sampling: nil graph")
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("sampling: graph %v is not homogeneous", g)
	}
	s := &neighborSampler{g: g, numNodes: g.NumNodes(), opts: opts}
	switch opts.Direction {
	case In:
		s.view = g.CSC()
	case Out:
		s.view = g.CSR()
	default:
		return nil, fmt.Errorf("sampling: unknown direction %v", opts.Direction)
	}
	if opts.Weights != nil && len(opts.Weights) != g.NumEdges() {
		return nil, fmt.Errorf("sampling: %d weights for %d edges", len(opts.Weights), g.NumEdges())
	}
	if len(opts.Exclude) > 0 {
		s.exclude = slices.Clone(opts.Exclude)
		slices.Sort(s.exclude)
		s.exclude = slices.Compact(s.exclude)
		if lo, hi := s.exclude[0], s.exclude[len(s.exclude)-1]; lo < 0 || hi >= int64(g.NumEdges()) {
			bad := lo
			if lo >= 0 {
				bad = hi
			}
			return nil, fmt.Errorf("sampling: excluded edge %d out of range [0, %d)", bad, g.NumEdges())
		}
		s.exPos, s.exBuckets = s.positions(s.exclude)
	}
	return s, nil
}

// excluding returns a copy of s that also excludes the edges ex, which
// must be sorted, without repeats and in range.
func (s *neighborSampler) excluding(ex []int64) *neighborSampler {
	c := *s
	if len(ex) == 0 {
		return &c
	}
	if s.exclude != nil {
		ex = slices.Concat(s.exclude, ex)
		slices.Sort(ex)
		ex = slices.Compact(ex)
	}
	c.exclude = ex
	c.exPos, c.exBuckets = s.positions(ex)
	return &c
}

// positions returns the sorted view positions of the edges ex (each edge's
// row is searched for it, edge IDs increasing along a row) and, for many,
// their buckets.
func (s *neighborSampler) positions(ex []int64) (pos []int64, buckets []uint64) {
	src, dst := s.g.COO()
	rows := dst
	if s.opts.Direction == Out {
		rows = src
	}
	pos = make([]int64, len(ex))
	for i, e := range ex {
		if s.view.Ordered {
			pos[i] = e
			continue
		}
		lo, hi := s.view.Row(int(rows[e]))
		k, _ := slices.BinarySearch(s.view.EIDs[lo:hi], int32(e))
		pos[i] = lo + int64(k)
	}
	slices.Sort(pos)
	if len(pos) >= exBucketsMin {
		buckets = make([]uint64, len(s.view.Indices)>>exShift/64+1)
		for _, p := range pos {
			b := p >> exShift
			buckets[b>>6] |= 1 << (b & 63)
		}
	}
	return pos, buckets
}

// seedGrain is the number of seeds below which sampling stays on one
// goroutine.
const seedGrain = 256

// firstError keeps the error of the lowest seed position, so the error
// reported does not depend on scheduling.
type firstError struct {
	mu  sync.Mutex
	pos int
	err error
}

func (e *firstError) set(pos int, err error) {
	e.mu.Lock()
	if e.err == nil || pos < e.pos {
		e.pos, e.err = pos, err
	}
	e.mu.Unlock()
}

// sample draws the frontier of seeds. Its Neighbors reuse buf's memory when
// it is large enough. When consume is not nil it is called on the calling
// goroutine with consecutive seed ranges [lo, hi), in order, as soon as
// their edges are drawn, while the following ranges are being drawn; it is
// not called when sample returns an error.
func (s *neighborSampler) sample(seeds []int32, fanout int, seed uint64, buf []int32, consume func(f *Frontier, lo, hi int)) (*Frontier, error) {
	if fanout < -1 {
		return nil, fmt.Errorf("sampling: fanout %d, want -1 (all) or at least 0", fanout)
	}
	n := len(seeds)
	indptr := make([]int64, n+1)
	rows := make([]int64, 2*n) // each seed's row [lo, hi) in the view, read once
	var fail firstError
	parallel.For(n, seedGrain, func(lo, hi int) {
		var sc scratch
		for i := lo; i < hi; i++ {
			v := seeds[i]
			if v < 0 || int(v) >= s.numNodes {
				fail.set(i, fmt.Errorf("sampling: seed %d (position %d) out of range [0, %d)", v, i, s.numNodes))
				return
			}
			lo, hi := s.view.Row(int(v))
			rows[2*i], rows[2*i+1] = lo, hi
			m, err := s.candidates(lo, hi, &sc)
			if err != nil {
				fail.set(i, err)
				return
			}
			indptr[i+1] = int64(s.count(fanout, m))
		}
	})
	if fail.err != nil {
		return nil, fail.err
	}
	for i := range n {
		indptr[i+1] += indptr[i]
	}
	if int64(cap(buf)) < indptr[n] {
		buf = make([]int32, indptr[n])
	}
	f := &Frontier{
		NumNodes:  s.numNodes,
		Seeds:     seeds,
		Indptr:    indptr,
		Neighbors: buf[:indptr[n]],
		EdgeIDs:   make([]int64, indptr[n]),
	}
	fill := func(lo, hi int) {
		var sc scratch
		var rng seeded.Stream
		for i := lo; i < hi; i++ {
			rng.Reset(seed, uint64(i))
			s.draw(rows[2*i], rows[2*i+1], fanout, &rng, &sc, f.Neighbors[indptr[i]:indptr[i+1]], f.EdgeIDs[indptr[i]:indptr[i+1]])
		}
	}
	if consume == nil {
		parallel.For(n, seedGrain, fill)
		return f, nil
	}
	pipeline(n, fill, func(lo, hi int) { consume(f, lo, hi) })
	return f, nil
}

// pipelineChunk is the number of seeds filled and then consumed at once by
// pipeline.
const pipelineChunk = 1024

// pipeline runs fill over chunks of [0, n) on Workers() goroutines, taking
// the chunks in order, and calls consume on the calling goroutine for each
// chunk in order once it is filled, so consuming overlaps with filling.
func pipeline(n int, fill, consume func(lo, hi int)) {
	chunks := (n + pipelineChunk - 1) / pipelineChunk
	if chunks <= 1 || parallel.Workers() == 1 {
		fill(0, n)
		consume(0, n)
		return
	}
	done := make([]chan struct{}, chunks)
	for c := range done {
		done[c] = make(chan struct{})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(parallel.Workers(), chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				fill(c*pipelineChunk, min((c+1)*pipelineChunk, n))
				close(done[c])
			}
		}()
	}
	for c := range chunks {
		<-done[c]
		consume(c*pipelineChunk, min((c+1)*pipelineChunk, n))
	}
	wg.Wait()
}

// scratch is one goroutine's working memory.
type scratch struct {
	filtered bool      // some edges of the row are not candidates
	cands    []int64   // candidate positions in the view, when filtered
	picks    []int64   // chosen candidate indices
	keys     []float64 // cumulative weights or sampling keys
	order    []int32
}

// count returns the number of edges drawn from m candidates.
func (s *neighborSampler) count(fanout, m int) int {
	switch {
	case fanout < 0:
		return m
	case s.opts.Replace:
		if m == 0 {
			return 0
		}
		return fanout
	}
	return min(fanout, m)
}

// candidates returns the number of candidate edges of the row [lo, hi) of
// the view. When some are not candidates (excluded, or of weight zero) it
// sets sc.filtered and leaves the candidates' positions in sc.cands;
// otherwise the candidates are the whole row.
func (s *neighborSampler) candidates(lo, hi int64, sc *scratch) (int, error) {
	sc.cands, sc.filtered = sc.cands[:0], false
	w := s.opts.Weights
	ex := s.excludedIn(lo, hi)
	if w == nil && len(ex) == 0 {
		return int(hi - lo), nil
	}
	for p := lo; p < hi; p++ {
		if len(ex) > 0 && ex[0] == p {
			ex = ex[1:]
			sc.filtered = true
			continue
		}
		if w != nil {
			e := s.edgeID(p)
			x := w[e]
			if !(x >= 0) || math.IsInf(float64(x), 1) {
				return 0, fmt.Errorf("sampling: edge %d has weight %v, want a finite non-negative number", e, x)
			}
			if x == 0 {
				sc.filtered = true
				continue
			}
		}
		sc.cands = append(sc.cands, p)
	}
	if !sc.filtered {
		return int(hi - lo), nil
	}
	return len(sc.cands), nil
}

// excludedIn returns the excluded view positions within [lo, hi).
func (s *neighborSampler) excludedIn(lo, hi int64) []int64 {
	if len(s.exPos) == 0 || hi <= lo {
		return nil
	}
	if s.exBuckets != nil {
		hit := false
		for b := lo >> exShift; b <= (hi-1)>>exShift && !hit; b++ {
			hit = s.exBuckets[b>>6]>>(b&63)&1 != 0
		}
		if !hit {
			return nil
		}
	}
	a, _ := slices.BinarySearch(s.exPos, lo)
	b := a
	for b < len(s.exPos) && s.exPos[b] < hi {
		b++
	}
	return s.exPos[a:b]
}

// edgeID returns the parent edge ID at position p of the view, without
// reading the view's edge-ID map when edges are numbered in its order
// (graph.ReorderEdges).
func (s *neighborSampler) edgeID(p int64) int64 {
	if s.view.Ordered {
		return p
	}
	return int64(s.view.EIDs[p])
}

// floydMax is the largest fanout drawn by Floyd's algorithm; above it a
// partial Fisher-Yates shuffle is used.
const floydMax = 32

// draw fills nbr and eid, of the length count gave, with edges sampled
// from the row [lo, hi) of the view.
func (s *neighborSampler) draw(lo, hi int64, fanout int, rng *seeded.Stream, sc *scratch, nbr []int32, eid []int64) {
	if len(nbr) == 0 {
		return
	}
	m, _ := s.candidates(lo, hi, sc) // checked by the count pass
	pos := func(c int64) int64 {
		if sc.filtered {
			return sc.cands[c]
		}
		return lo + c
	}
	put := func(j int, c int64) {
		p := pos(c)
		nbr[j] = s.view.Indices[p]
		eid[j] = s.edgeID(p)
	}
	k := len(nbr)
	w := s.opts.Weights
	switch {
	case fanout < 0 || !s.opts.Replace && k == m:
		for j := range k {
			put(j, int64(j))
		}
	case s.opts.Replace && w == nil:
		for j := range k {
			put(j, int64(rng.Below(uint64(m))))
		}
	case s.opts.Replace:
		// Cumulative weights, then one binary search per draw.
		sc.keys = sc.keys[:0]
		var total float64
		for c := range m {
			total += float64(w[s.edgeID(pos(int64(c)))])
			sc.keys = append(sc.keys, total)
		}
		for j := range k {
			x := rng.Open01() * total
			c, _ := slices.BinarySearch(sc.keys, x) // first cumulative >= x
			put(j, int64(min(c, m-1)))
		}
	case w == nil:
		sc.picks = sampleDistinct(rng, m, k, sc.picks[:0], &sc.order)
		if !sc.filtered {
			for j, c := range sc.picks {
				p := lo + c
				nbr[j] = s.view.Indices[p]
				eid[j] = s.edgeID(p)
			}
			return
		}
		for j, c := range sc.picks {
			put(j, c)
		}
	default:
		// Efraimidis and Spirakis: the k largest keys log(u)/w are a draw
		// of k edges one after the other in proportion to their weights.
		sc.keys = sc.keys[:0]
		sc.order = sc.order[:0]
		for c := range m {
			sc.keys = append(sc.keys, math.Log(rng.Open01())/float64(w[s.edgeID(pos(int64(c)))]))
			sc.order = append(sc.order, int32(c))
		}
		slices.SortFunc(sc.order, func(a, b int32) int {
			if ka, kb := sc.keys[a], sc.keys[b]; ka != kb {
				if ka > kb {
					return -1
				}
				return 1
			}
			return int(a - b)
		})
		sc.picks = sc.picks[:0]
		for _, c := range sc.order[:k] {
			sc.picks = append(sc.picks, int64(c))
		}
		slices.Sort(sc.picks)
		for j, c := range sc.picks {
			put(j, c)
		}
	}
}

// sampleDistinct returns k distinct uniform indices of [0, m), k < m,
// sorted, in out's memory: Floyd's algorithm for a small k, a partial
// Fisher-Yates shuffle of a scratch permutation otherwise.
func sampleDistinct(rng *seeded.Stream, m, k int, out []int64, perm *[]int32) []int64 {
	if m <= 64 {
		// Floyd's algorithm over a bit set; its bits read out sorted.
		var set uint64
		for j := m - k; j < m; j++ {
			t := rng.Below(uint64(j + 1))
			if set>>t&1 != 0 {
				t = uint64(j)
			}
			set |= 1 << t
		}
		for ; set != 0; set &= set - 1 {
			out = append(out, int64(bits.TrailingZeros64(set)))
		}
		return out
	}
	if k <= floydMax {
		// out stays sorted: j exceeds every index drawn before it, and t
		// is inserted in place.
		for j := m - k; j < m; j++ {
			t := int64(rng.Below(uint64(j + 1)))
			at, found := slices.BinarySearch(out, t)
			if found {
				out = append(out, int64(j))
			} else {
				out = slices.Insert(out, at, t)
			}
		}
		return out
	}
	p := (*perm)[:0]
	for c := range m {
		p = append(p, int32(c))
	}
	for j := range k {
		t := j + int(rng.Below(uint64(m-j)))
		p[j], p[t] = p[t], p[j]
		out = append(out, int64(p[j]))
	}
	*perm = p
	slices.Sort(out)
	return out
}
