package edgesoftmax

import (
	"math"
	"sync"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// The streaming path of the float32 edge softmax, for graphs whose edge IDs
// are not in group order.
//
// The group-by-group kernels (forwardRows, backwardRows) reach a group's
// edge rows through the view's edge-ID map; when edge IDs are in random
// order every such row is a cache and TLB miss in an edge-sized array. The
// streaming path turns the access around: it walks the edge rows in
// edge-ID order, a sequential stream, and keeps per-group rows (the column
// maxima and sums) in tables of groups x width entries, which are reached
// at random but are small enough to stay cached. Forward makes three passes
// over the edges: the maxima, the exponentials and their sums, the division;
// backward two: the sums of y*dy, the gradient.
//
// Rows of 2 and 4 floats stream too, through the kernels of
// stream_narrow_amd64.s, which give the results of the 8-column ones.
//
// The edges are split into a fixed number of chunks, which depends on the
// edge and group counts only; each chunk fills its own tables, and the
// tables are merged in chunk order (maxima exactly; float64 sums added in
// chunk order), so results are the same bits for any GOMAXPROCS. Sums
// within a chunk are taken in edge-ID order, the order of a group's edges
// in the view; with one chunk the results are those of the group kernels
// bit for bit, with several they differ in the rounding of the sums.

// Tuning of the streaming path. Tests lower the thresholds to reach it on
// small graphs.
var (
	// useStream turns the streaming path on.
	useStream = true
	// streamMinBytes is the smallest score array that streams: smaller
	// ones are cached anyway, and the group kernels need no tables.
	streamMinBytes = 8 << 20
	// streamMaxTable is the largest table, in groups x width entries,
	// that streams: a chunk's float32 maxima and float64 sums take 12
	// bytes an entry, and the tables should mostly stay in the last-level
	// cache. Beyond that the tables' own misses outweigh what streaming
	// the edges saves: on uniform random graphs with 8 columns streaming
	// won at 1.6M entries and lost backward at 4M (TUNING.md).
	streamMaxTable = 2 << 20
	// streamDist is how many edges ahead the exponential pass prefetches
	// table rows, whose gathers are the misses of that pass; the other
	// passes were slower with prefetching and go without (TUNING.md).
	streamDist = 64
)

const (
	// streamMaxChunks bounds the chunks, and so the tables, of a call:
	// more chunks mean more tables competing for the cache (TUNING.md).
	streamMaxChunks = 4
	// streamChunkDegree is the fewest edges per group a chunk holds, so
	// that merging tables costs a fraction of streaming the edges.
	streamChunkDegree = 16
	// streamGrain is the fewest edges of a task of the elementwise pass.
	streamGrain = 1 << 14
	// mergeGrain is the fewest table entries of a task of a merge.
	mergeGrain = 1 << 14
)

// streamPlan says whether the streaming path applies to a softmax over the
// groups of view c of g, with rows of w float32 scores, and returns the
// group of every edge (the COO destination or source) and the number of
// groups and of chunks.
func streamPlan(g *graph.Graph, c *graph.Compressed, norm Norm, w int) (keys []int32, groups, chunks int, ok bool) {
	ne, groups := g.NumEdges(), c.NumRows()
	if !useAVX2 || !useStream || c.Ordered || w == 0 || (w%8 != 0 && !(useNarrow && (w == 2 || w == 4))) ||
		ne*w*4 < streamMinBytes || groups*w > streamMaxTable || ne < groups {
		return nil, 0, 0, false
	}
	src, dst := g.COO()
	keys = dst
	if norm == BySrc {
		keys = src
	}
	chunks = max(1, min(streamMaxChunks, ne/(streamChunkDegree*max(groups, 1))))
	return keys, groups, chunks, true
}

// forwardStream runs Forward on the streaming path when it applies and
// reports whether it did: the column maxima of each chunk's edges, merged;
// the exponentials, written to out, and each chunk's sums, merged into
// reciprocals; out times the reciprocals.
func forwardStream[T num.Float](out []T, g *graph.Graph, c *graph.Compressed, norm Norm, score []T, w int) bool {
	o, ok := any(out).([]float32)
	if !ok {
		return false
	}
	keys, groups, k, ok := streamPlan(g, c, norm, w)
	if !ok {
		return false
	}
	x := any(score).([]float32)
	tw, bounds := groups*w, parallel.Split(len(keys), k)
	m, s := f32Scratch.get(k*tw), f64Scratch.get(k*tw)
	defer f32Scratch.put(m)
	defer f64Scratch.put(s)
	negInf := float32(math.Inf(-1))
	parallel.For(k, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mc := m[ch*tw : (ch+1)*tw]
			for j := range mc {
				mc[j] = negInf
			}
			if a, b := bounds[ch], bounds[ch+1]; a < b {
				maxScatter(&mc[0], &x[a*w], &keys[a], b-a, w)
			}
		}
	})
	m0 := m[:tw]
	parallel.For(tw, mergeGrain, func(lo, hi int) {
		for ch := 1; ch < k; ch++ {
			mc := m[ch*tw:][lo:hi]
			for j, v := range mc {
				if v > m0[lo+j] {
					m0[lo+j] = v
				}
			}
		}
	})
	parallel.For(k, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sc := s[ch*tw : (ch+1)*tw]
			clear(sc)
			if a, b := bounds[ch], bounds[ch+1]; a < b {
				expScatter(&o[a*w], &x[a*w], &m0[0], &sc[0], &keys[a], b-a, w, streamDist)
			}
		}
	})
	// The maxima are spent: m0 takes the reciprocals of the sums.
	parallel.For(tw, mergeGrain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			v := s[j]
			for ch := 1; ch < k; ch++ {
				v += s[ch*tw+j]
			}
			m0[j] = float32(1 / v)
		}
	})
	parallel.For(len(keys), streamGrain, func(lo, hi int) {
		scaleGather(&o[lo*w], &m0[0], &keys[lo], hi-lo, w)
	})
	return true
}

// backwardStream runs Backward on the streaming path when it applies and
// reports whether it did.
func backwardStream[T num.Float](ds []T, g *graph.Graph, c *graph.Compressed, norm Norm, y, dy []T, w int) bool {
	d, ok := any(ds).([]float32)
	if !ok {
		return false
	}
	keys, groups, k, ok := streamPlan(g, c, norm, w)
	if !ok {
		return false
	}
	y32, dy32 := any(y).([]float32), any(dy).([]float32)
	gradStream(y32, dy32, keys, groups, k, w, func(s []float64, lo, hi int) {
		gradGather(&d[lo*w], &y32[lo*w], &dy32[lo*w], &s[0], &keys[lo], hi-lo, w)
	})
	return true
}

// attentionBackStream runs AttentionBackward on the streaming path, for
// float32 rows of two, four or eight heads, when it applies and reports
// whether it did. (Attention itself keeps the group kernels; see
// stream_amd64.s.)
func attentionBackStream[T num.Float](ds []T, g *graph.Graph, c *graph.Compressed, el, er []T, slope float64, y, dy []T, w int) bool {
	d, ok := any(ds).([]float32)
	if !ok || (w != 8 && w != 2 && w != 4) {
		return false
	}
	dst, groups, k, ok := streamPlan(g, c, ByDst, w)
	if !ok {
		return false
	}
	src, _ := g.COO()
	l, r, sl := any(el).([]float32), any(er).([]float32), float32(slope)
	y32, dy32 := any(y).([]float32), any(dy).([]float32)
	gradStream(y32, dy32, dst, groups, k, w, func(s []float64, lo, hi int) {
		if w < 8 {
			attnGradGatherNF32(&d[lo*w], &y32[lo*w], &dy32[lo*w], &l[0], &r[0], &s[0], &src[lo], &dst[lo], hi-lo, w, sl)
			return
		}
		attnGradGather8(&d[lo*w], &y32[lo*w], &dy32[lo*w], &l[0], &r[0], &s[0], &src[lo], &dst[lo], hi-lo, sl)
	})
	return true
}

// gradStream makes the two passes of a streaming backward over the edges,
// k chunks of them, whose groups are keys: the sums of y*dy per group, then
// grad(s, lo, hi), which writes the gradients of edges [lo, hi) given the
// sums s.
func gradStream(y, dy []float32, keys []int32, groups, k, w int, grad func(s []float64, lo, hi int)) {
	tw, bounds := groups*w, parallel.Split(len(keys), k)
	s := f64Scratch.get(k * tw)
	defer f64Scratch.put(s)
	parallel.For(k, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sc := s[ch*tw : (ch+1)*tw]
			clear(sc)
			if a, b := bounds[ch], bounds[ch+1]; a < b {
				dotScatter(&sc[0], &y[a*w], &dy[a*w], &keys[a], b-a, w)
			}
		}
	})
	parallel.For(tw, mergeGrain, func(lo, hi int) {
		s0 := s[lo:hi]
		for ch := 1; ch < k; ch++ {
			for j, v := range s[ch*tw:][lo:hi] {
				s0[j] += v
			}
		}
	})
	parallel.For(len(keys), streamGrain, func(lo, hi int) { grad(s, lo, hi) })
}

// scratch recycles the tables of the streaming path across calls: a
// training loop calls the softmax with the same sizes every step, and
// fresh tables of tens of megabytes cost a page fault per 4 KiB.
type scratch[T any] struct{ pool sync.Pool }

var (
	f32Scratch scratch[float32]
	f64Scratch scratch[float64]
)

// get returns a slice of n elements with arbitrary contents.
func (s *scratch[T]) get(n int) []T {
	if b, ok := s.pool.Get().(*[]T); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]T, n)
}

// put hands b back for a later get.
func (s *scratch[T]) put(b []T) { s.pool.Put(&b) }

// The streaming kernels by row width: those of stream_narrow_amd64.s for
// rows of 2 and 4 floats, of stream_amd64.s for multiples of 8.

func maxScatter(m, x *float32, keys *int32, n, w int) {
	if w < 8 {
		maxScatterNF32(m, x, keys, n, w)
		return
	}
	maxScatterF32(m, x, keys, n, w)
}

func expScatter(out, x, m *float32, s *float64, keys *int32, n, w, dist int) {
	if w < 8 {
		expScatterNF32(out, x, m, s, keys, n, w, dist)
		return
	}
	expScatterF32(out, x, m, s, keys, n, w, dist)
}

func scaleGather(out, r *float32, keys *int32, n, w int) {
	if w < 8 {
		scaleGatherNF32(out, r, keys, n, w)
		return
	}
	scaleGatherF32(out, r, keys, n, w)
}

func dotScatter(s *float64, y, dy *float32, keys *int32, n, w int) {
	if w < 8 {
		dotScatterNF32(s, y, dy, keys, n, w)
		return
	}
	dotScatterF32(s, y, dy, keys, n, w)
}

func gradGather(ds, y, dy *float32, s *float64, keys *int32, n, w int) {
	if w < 8 {
		gradGatherNF32(ds, y, dy, s, keys, n, w)
		return
	}
	gradGatherF32(ds, y, dy, s, keys, n, w)
}
