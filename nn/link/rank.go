package link

import (
	"fmt"
	"sync"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/metrics"
)

// The ranking works on chunks of rankChunk positives. A chunk's negatives
// are first grouped (one counting-sort pass) by blocks of rankBlock
// consecutive node IDs, so that while a block's pairs are scored its rows
// of h, and the chunk's positive rows, stay in the core's L2 cache (64
// rows of 64 float32s each take 16 KB... a block of 512 rows 128 KB): in
// the order the negatives come, every score would read a random row of h,
// and scoring would wait on memory, not on arithmetic.
const (
	rankChunk = 512
	rankShift = 9 // rankBlock = 1 << rankShift node rows
)

// RankDot ranks every positive pair (posSrc[i], posDst[i]) against its k
// negatives (posSrc[i], negDst[i*k+j]) by the dot product of rows of h, an
// n x dim row-major table of embeddings (a Gorgonia value's Data() after a
// forward run, say), and adds each positive's rank to r with OGB's tie rule
// (metrics.Ranking.AddCounts): ogbl-citation2's protocol, 1,000 negatives
// per positive, corrupting the destination.
//
// It never forms the P*k scores, nor any row per pair: positives are taken
// in chunks of 512, each chunk's negatives are grouped by blocks of 512
// node IDs (a counting sort of their indices, 8 bytes per negative of the
// chunk), and each score is compared with its positive's at once, so only
// two counts per positive are kept. Chunks run in parallel, each
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
	pool := sync.Pool{New: func() any { return &ranker[T]{h: h, dim: dim, k: k, count: make([]int32, blocks+1)} }}
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
	count  []int32 // per block of node IDs, then their offsets
	node   []int32 // the chunk's negatives, grouped by block
	owner  []int32 // the chunk position of each one's positive
	pos    []T     // the chunk's positive scores
}

// chunk counts, for every positive of a chunk, the negatives scoring above
// it and tied with it.
func (rk *ranker[T]) chunk(src, dst, neg []int32, above, tied []int32, bad []bool) {
	h, dim, k := rk.h, rk.dim, rk.k
	if cap(rk.pos) < len(src) {
		rk.pos = make([]T, len(src))
		rk.node = make([]int32, len(src)*k)
		rk.owner = make([]int32, len(src)*k)
	}
	pos, node, owner := rk.pos[:len(src)], rk.node[:len(neg)], rk.owner[:len(neg)]
	for i := range src {
		u, v := int(src[i]), int(dst[i])
		pos[i] = dot8(h[u*dim:(u+1)*dim], h[v*dim:(v+1)*dim])
		bad[i] = pos[i] != pos[i]
		above[i], tied[i] = 0, 0
	}
	// Group the negatives by block, in order within each block.
	cnt := rk.count
	clear(cnt)
	for _, n := range neg {
		cnt[n>>rankShift+1]++
	}
	for b := 1; b < len(cnt); b++ {
		cnt[b] += cnt[b-1]
	}
	for j, n := range neg {
		at := cnt[n>>rankShift]
		cnt[n>>rankShift] = at + 1
		node[at], owner[at] = n, int32(j/k)
	}
	for q, n := range node {
		i := owner[q]
		u := int(src[i])
		x := dot8(h[u*dim:(u+1)*dim], h[int(n)*dim:int(n+1)*dim])
		if s := pos[i]; x > s {
			above[i]++
		} else if x == s {
			tied[i]++
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
		for i := lo; i < hi; i++ {
			u, v := int(src[i]), int(dst[i])
			out[i] = dot8(h[u*dim:(u+1)*dim], h[v*dim:(v+1)*dim])
		}
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
