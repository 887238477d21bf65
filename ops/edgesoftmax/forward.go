package edgesoftmax

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// stackWidth is the widest score row whose per-group scratch lives on the
// stack (stackRow).
const stackWidth = 16

// stackRow returns w elements of scratch: buf's first w, or new ones when
// w is wider than stackWidth.
func stackRow[E num.Float](buf *[stackWidth]E, w int) []E {
	s := buf[:]
	if w > stackWidth {
		s = make([]E, w)
	}
	return s[:w]
}

// Forward overwrites out, of length g.NumEdges()*width, with the softmax of
// score, of the same length, over the edges that share a destination node
// (ByDst) or a source node (BySrc), independently for each of the width
// columns of a row: for column h of edge e in group G,
//
//	out[e*width+h] = exp(score[e*width+h] - M) / sum over e' in G of exp(score[e'*width+h] - M)
//
// where M is the maximum of column h over G, so no exponential exceeds 1.
// Exponentials are summed in float64 and computed in float64, except by the
// AVX2 kernel of float32 rows, whose float32 exponential is good to about
// 1e-7 relative and flushes results below the smallest normal float32 to 0. An edge whose score is -Inf (masked out)
// gets 0; a column of a group that holds NaN or +Inf, or only -Inf, gives
// NaN throughout the group, as the textbook formula does.
// out may be score itself but must not overlap it otherwise.
//
// Forward panics when a length does not match, width is negative or norm is
// unknown: internal invariants that the op layer checks before calling.
func Forward[T num.Float](out []T, g *graph.Graph, norm Norm, score []T, width int) {
	c := groups(g, norm)
	checkLen("out", out, g, width)
	checkLen("score", score, g, width)
	if width == 0 || forwardStream(out, g, c, norm, score, width) {
		return
	}
	forRows(c, func(lo, hi int) { forwardRows(out, c, score, width, lo, hi) })
}

// forwardRows computes the groups of rows [lo, hi) of c in three passes
// over each group: the column maxima, the exponentials and their sums, and
// the division by the sums. The first pass also touches the rows of the
// edges ahead, so the later passes and the next groups find them cached.
func forwardRows[T num.Float](out []T, c *graph.Compressed, score []T, w, lo, hi int) {
	if forwardAccel(out, c, score, w, lo, hi) {
		return
	}
	var mbuf [stackWidth]T
	var sbuf [stackWidth]float64
	m, s := stackRow(&mbuf, w), stackRow(&sbuf, w)
	end := c.Indptr[hi]
	for r := lo; r < hi; r++ {
		a, b := c.Indptr[r], c.Indptr[r+1]
		if a == b {
			continue
		}
		eids := c.EIDs[a:b]
		for i, e := range eids {
			if p := a + int64(i); p%ahead == 0 && p+ahead < end {
				touch(c.EIDs[p+ahead:min(p+2*ahead, end)], w, score, out)
			}
			row := score[int(e)*w : int(e)*w+w]
			if i == 0 {
				copy(m, row)
				continue
			}
			for h, v := range row[:len(m)] {
				if v > m[h] {
					m[h] = v
				}
			}
		}
		clear(s)
		for _, e := range eids {
			o := int(e) * w
			num.ExpSum(out[o:o+w], score[o:o+w], m, s)
		}
		for h := range s {
			s[h] = 1 / s[h]
		}
		for _, e := range eids {
			row := out[int(e)*w : int(e)*w+w]
			for h, v := range s[:len(row)] {
				row[h] = T(float64(row[h]) * v)
			}
		}
	}
}
