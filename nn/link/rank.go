package link

import (
	"fmt"
	"sync"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/metrics"
)

// RankDot works on chunks of rankChunk positives. A table of embeddings
// up to directBytes is scored in the order the negatives come: it stays in
// the last-level cache, and the kernel's prefetching hides the latency. A
// larger one would make every score read a random row from memory, so a
// chunk's negatives are first grouped, by one counting-sort pass, by blocks
// of 1 << rankShift consecutive node IDs, so that while a block's pairs are
// scored its rows of h (128 KB of 64 float32 features) and the chunk's
// positive rows stay in L2. On this machine (32 MB of L3 shared by two
// cores) grouping costs about 16 ns of CPU per score and saves more only
// from about 100,000 rows of 64 floats: per score, 11 against 27 ns ungrouped
// and grouped at 1,000 rows, 23 against 29 at 30,000, 34 against 31 at
// 100,000, 70 against 67 at 1,000,000.
const (
	rankChunk = 512
	rankShift = 9 // rankBlock = 1 << rankShift node rows
)

// directBytes is the largest table scored without grouping (a variable
// so that tests can take either path on small tables).
var directBytes = 16 << 20

// RankDot ranks every positive pair (posSrc[i], posDst[i]) against its k
// negatives (posSrc[i], negDst[i*k+j]) by the dot product of rows of h, an
// n x dim row-major table of embeddings (a Gorgonia value's Data() after a
// forward run, say), and adds each positive's rank to r with OGB's tie rule
// (metrics.Ranking.AddCounts): ogbl-citation2's protocol, 1,000 negatives
// per positive, corrupting the destination.
//
// It never forms the P*k scores, nor any row per pair: positives are taken
// in chunks of 512; over a table larger than 16 MB each chunk's negatives
// are grouped by blocks of 512 node IDs (a counting sort of their indices:
// 8 bytes per negative of the chunk, per goroutine), and each score is compared with its positive's at
// once, so only two counts per positive are kept. Float32 rows a multiple
// of 8 wide are scored by an AVX2/FMA kernel where the CPU has one (as
// ScoreDot, so the two agree bit for bit). Chunks run in parallel, each
// independently, and the counts are added to r in positive order, so the
// result does not depend on GOMAXPROCS. A positive whose score is NaN is an
// error; a NaN negative counts as neither above nor tied.
func RankDot[T num.Float](h []T, dim int, posSrc, posDst, negDst []int32, k int, r *metrics.Ranking) error {
	if r == nil {
		return fmt.Errorf("link: RankDot needs a metrics.Ranking to add to")
	}
	if err := checkRank(len(h), dim, posSrc, posDst, negDst, k); err != nil {
		return err
	}
	p := len(posSrc)
	above, tied := make([]int32, p), make([]int32, p)
	bad := make([]bool, p)
	blocks := (len(h)/dim)>>rankShift + 1
	// One scratch per goroutine at a time, reused across its tasks.
	direct := len(h)*int(unsafe.Sizeof(h[0])) <= directBytes
	pool := sync.Pool{New: func() any {
		return &ranker[T]{h: h, dim: dim, k: k, direct: direct, count: make([]int32, blocks+1)}
	}}
	parallel.For(p, rankChunk, func(lo, hi int) {
		rk := pool.Get().(*ranker[T])
		defer pool.Put(rk)
		for c := lo; c < hi; c += rankChunk {
			e := min(c+rankChunk, hi)
			rk.chunk(posSrc[c:e], posDst[c:e], negDst[c*k:e*k], above[c:e], tied[c:e], bad[c:e])
		}
	})
	for i := range p {
		if bad[i] {
			return fmt.Errorf("link: RankDot: positive %d (%d, %d) scores NaN", i, posSrc[i], posDst[i])
		}
	}
	for i := range p {
		if err := r.AddCounts(int(above[i]), int(tied[i])); err != nil {
			return err
		}
	}
	return nil
}

// ranker holds one goroutine's scratch for RankDot.
type ranker[T num.Float] struct {
	h      []T
	dim, k int
	direct bool    // score the negatives in the order they come
	count  []int32 // per block of node IDs, then their offsets
	node   []int32 // the chunk's negatives, grouped by block
	owner  []int32 // the chunk position of each one's positive
	left   []int32 // a batch of the owners' source nodes
	pos    []T     // the chunk's positive scores
	score  []T     // a batch of negative scores
}

// rankBatch is the number of negatives scored per call of dots.
const rankBatch = 256

// chunk counts, for every positive of a chunk, the negatives scoring above
// it and tied with it.
func (rk *ranker[T]) chunk(src, dst, neg []int32, above, tied []int32, bad []bool) {
	k := rk.k
	if cap(rk.pos) < len(src) {
		rk.pos = make([]T, len(src))
	}
	pos := rk.pos[:len(src)]
	dots(pos, rk.h, rk.dim, src, dst)
	for i, s := range pos {
		bad[i] = s != s
		above[i], tied[i] = 0, 0
	}
	if rk.direct {
		if cap(rk.left) < k {
			rk.left, rk.score = make([]int32, k), make([]T, k)
		}
		left, score := rk.left[:k], rk.score[:k]
		for i, u := range src {
			for j := range left {
				left[j] = u
			}
			dots(score, rk.h, rk.dim, left, neg[i*k:(i+1)*k])
			s := pos[i]
			var a, t int32
			for _, x := range score {
				if x > s {
					a++
				} else if x == s {
					t++
				}
			}
			above[i], tied[i] = a, t
		}
		return
	}
	if cap(rk.node) < len(neg) {
		rk.node, rk.owner = make([]int32, len(neg)), make([]int32, len(neg))
		rk.left, rk.score = make([]int32, rankBatch), make([]T, rankBatch)
	}
	node, owner := rk.node[:len(neg)], rk.owner[:len(neg)]
	// Group the negatives by block, in order within each block.
	cnt := rk.count
	clear(cnt)
	for _, n := range neg {
		cnt[n>>rankShift+1]++
	}
	for b := 1; b < len(cnt); b++ {
		cnt[b] += cnt[b-1]
	}
	for i := range src {
		for _, n := range neg[i*k : (i+1)*k] {
			at := cnt[n>>rankShift]
			cnt[n>>rankShift] = at + 1
			node[at], owner[at] = n, int32(i)
		}
	}
	for q := 0; q < len(node); q += rankBatch {
		e := min(q+rankBatch, len(node))
		left, score := rk.left[:e-q], rk.score[:e-q]
		for j, i := range owner[q:e] {
			left[j] = src[i]
		}
		dots(score, rk.h, rk.dim, left, node[q:e])
		for j, i := range owner[q:e] {
			if x, s := score[j], pos[i]; x > s {
				above[i]++
			} else if x == s {
				tied[i]++
			}
		}
	}
}

// checkRank validates RankDot's arguments over a table of size elements.
func checkRank(size, dim int, posSrc, posDst, negDst []int32, k int) error {
	if dim <= 0 || size%dim != 0 {
		return fmt.Errorf("link: RankDot: %d embedding elements are not rows of %d", size, dim)
	}
	n := size / dim
	if k <= 0 {
		return fmt.Errorf("link: RankDot: k = %d negatives per positive, want at least 1", k)
	}
	if len(posDst) != len(posSrc) {
		return fmt.Errorf("link: RankDot: %d positive sources but %d destinations", len(posSrc), len(posDst))
	}
	if len(negDst) != len(posSrc)*k {
		return fmt.Errorf("link: RankDot: %d negatives for %d positives with k = %d (want %d)", len(negDst), len(posSrc), k, len(posSrc)*k)
	}
	if i, x := outside(posSrc, n); i >= 0 {
		return fmt.Errorf("link: RankDot: positive %d has source %d but the embeddings have %d rows", i, x, n)
	}
	if i, x := outside(posDst, n); i >= 0 {
		return fmt.Errorf("link: RankDot: positive %d has destination %d but the embeddings have %d rows", i, x, n)
	}
	if i, x := outside(negDst, n); i >= 0 {
		return fmt.Errorf("link: RankDot: negative %d of positive %d has destination %d but the embeddings have %d rows", i%k, i/k, x, n)
	}
	return nil
}

// outside returns the first index of ids outside [0, n) and its value, or
// -1.
func outside(ids []int32, n int) (int, int32) {
	for i, x := range ids {
		if x < 0 || int(x) >= n {
			return i, x
		}
	}
	return -1, 0
}

// ScoreDot writes to out the dot product of rows src[i] and dst[i] of h
// (n x dim, row-major) for every pair i: the scores of evaluation pairs
// (for metrics.Binary or metrics.HitsAtK) without a pair graph or any row
// per pair. Pairs run in parallel; each score is computed alone, so the
// result does not depend on GOMAXPROCS.
func ScoreDot[T num.Float](out, h []T, dim int, src, dst []int32) error {
	if dim <= 0 || len(h)%dim != 0 {
		return fmt.Errorf("link: ScoreDot: %d embedding elements are not rows of %d", len(h), dim)
	}
	n := len(h) / dim
	if len(dst) != len(src) || len(out) != len(src) {
		return fmt.Errorf("link: ScoreDot: %d sources, %d destinations and %d outputs", len(src), len(dst), len(out))
	}
	if i, x := outside(src, n); i >= 0 {
		return fmt.Errorf("link: ScoreDot: pair %d has source %d but the embeddings have %d rows", i, x, n)
	}
	if i, x := outside(dst, n); i >= 0 {
		return fmt.Errorf("link: ScoreDot: pair %d has destination %d but the embeddings have %d rows", i, x, n)
	}
	parallel.For(len(src), max(1, (1<<14)/dim), func(lo, hi int) {
		dots(out[lo:hi], h, dim, src[lo:hi], dst[lo:hi])
	})
	return nil
}

// dot8 returns the dot product of a and b (equal lengths) in eight
// interleaved partial sums, added in a fixed order (a balanced tree).
func dot8[T num.Float](a, b []T) T {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 T
	j := 0
	for ; j+8 <= len(a); j += 8 {
		x, y := (*[8]T)(a[j:]), (*[8]T)(b[j:])
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * b[j]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// RankDotValue is RankDot on the embeddings as a Gorgonia value (an
// encoder's output after a forward run: N x dim, float32 or float64).
func RankDotValue(h gorgonia.Value, posSrc, posDst, negDst []int32, k int, r *metrics.Ranking) error {
	dim, err := valueDim(h)
	if err != nil {
		return err
	}
	if h.Dtype() == tensor.Float32 {
		x, err := values.Data[float32](h)
		if err != nil {
			return fmt.Errorf("link: RankDotValue: %w", err)
		}
		return RankDot(x, dim, posSrc, posDst, negDst, k, r)
	}
	x, err := values.Data[float64](h)
	if err != nil {
		return fmt.Errorf("link: RankDotValue: %w", err)
	}
	return RankDot(x, dim, posSrc, posDst, negDst, k, r)
}

// ScoreDotValue returns the dot products of rows src[i] and dst[i] of the
// embeddings h, a Gorgonia value (N x dim, float32 or float64), as float64s
// ready for the metrics package (see ScoreDot).
func ScoreDotValue(h gorgonia.Value, src, dst []int32) ([]float64, error) {
	dim, err := valueDim(h)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(src))
	if h.Dtype() == tensor.Float32 {
		x, err := values.Data[float32](h)
		if err != nil {
			return nil, fmt.Errorf("link: ScoreDotValue: %w", err)
		}
		s := make([]float32, len(src))
		if err := ScoreDot(s, x, dim, src, dst); err != nil {
			return nil, err
		}
		for i, v := range s {
			out[i] = float64(v)
		}
		return out, nil
	}
	x, err := values.Data[float64](h)
	if err != nil {
		return nil, fmt.Errorf("link: ScoreDotValue: %w", err)
	}
	return out, ScoreDot(out, x, dim, src, dst)
}

// valueDim checks that h is an N x dim float matrix and returns dim.
func valueDim(h gorgonia.Value) (int, error) {
	if h == nil {
		return 0, fmt.Errorf("link: no embeddings (a nil value: run the model first)")
	}
	s := h.Shape()
	if len(s) != 2 || s[1] == 0 {
		return 0, fmt.Errorf("link: embeddings have shape %v, want (nodes, features)", s)
	}
	if dt := h.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return 0, fmt.Errorf("link: embeddings have dtype %v, want float32 or float64", dt)
	}
	return s[1], nil
}
