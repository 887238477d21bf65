package edgesoftmax

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// Backward overwrites dScore, of length g.NumEdges()*width, with the
// gradient of a loss with respect to the scores of Forward, given Forward's
// output y and the gradient dy of the loss with respect to y: for column h of
// edge e in group G,
//
//	dScore[e*width+h] = y[e*width+h] * (dy[e*width+h] - sum over e' in G of y[e'*width+h]*dy[e'*width+h])
//
// with the group sums accumulated in float64. norm and width must be those
// of the forward call. dScore may be y or dy itself but must not overlap
// them otherwise.
//
// Backward panics when a length does not match, width is negative or norm is
// unknown: internal invariants that the op layer checks before calling.
func Backward[T num.Float](dScore []T, g *graph.Graph, norm Norm, y, dy []T, width int) {
	c := groups(g, norm)
	checkLen("dScore", dScore, g, width)
	checkLen("y", y, g, width)
	checkLen("dy", dy, g, width)
	if width == 0 || backwardStream(dScore, g, c, norm, y, dy, width) {
		return
	}
	forRows(c, func(lo, hi int) { backwardRows(dScore, c, y, dy, width, lo, hi) })
}

// backwardRows computes the groups of rows [lo, hi) of c in two passes over
// each group: the sums of y*dy, touching the rows of the edges ahead, and
// the gradient.
func backwardRows[T num.Float](ds []T, c *graph.Compressed, y, dy []T, w, lo, hi int) {
	if backwardAccel(ds, c, y, dy, w, lo, hi) {
		return
	}
	var sbuf [stackWidth]float64
	s := stackRow(&sbuf, w)
	end := c.Indptr[hi]
	for r := lo; r < hi; r++ {
		a, b := c.Indptr[r], c.Indptr[r+1]
		if a == b {
			continue
		}
		eids := c.EIDs[a:b]
		clear(s)
		for i, e := range eids {
			if p := a + int64(i); p%ahead == 0 && p+ahead < end {
				touch(c.EIDs[p+ahead:min(p+2*ahead, end)], w, y, dy, ds)
			}
			o := int(e) * w
			yr, dr := y[o:o+w], dy[o:o+w]
			for h, v := range yr[:len(s)] {
				s[h] += float64(v) * float64(dr[h])
			}
		}
		for _, e := range eids {
			o := int(e) * w
			yr, dr, gr := y[o:o+w], dy[o:o+w], ds[o:o+w]
			for h, v := range s[:len(gr)] {
				gr[h] = T(float64(yr[h]) * (float64(dr[h]) - v))
			}
		}
	}
}
