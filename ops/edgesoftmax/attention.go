package edgesoftmax

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// Attention overwrites out, of length g.NumEdges()*width, with GAT's
// attention: the softmax by destination (as Forward with ByDst) of the
// scores
//
//	score[e*width+h] = LeakyReLU(el[u*width+h] + er[v*width+h])
//
// for every edge e = (u, v), where LeakyReLU(x) is x for x >= 0 and
// slope*x below. The scores are computed per destination group into
// scratch and never stored per edge: the kernel reads el and er (one row
// per source and per destination node) and writes out once.
//
// Attention panics when a length does not match or width is negative:
// internal invariants that the op layer checks before calling.
func Attention[T num.Float](out []T, g *graph.Graph, el, er []T, slope float64, width int) {
	checkLen("out", out, g, width)
	checkScores(g, el, er, width)
	if width == 0 {
		return
	}
	c := g.CSC()
	if attentionAccel(out, c, el, er, slope, width) {
		return
	}
	forRows(c, func(lo, hi int) { attentionRows(out, c, el, er, T(slope), width, lo, hi) })
}

// attentionAccel runs Attention with the AVX2 kernels, one call per
// destination group, and reports whether they applied: float32 rows of one,
// two, four or eight heads and a slope of at most 1.
func attentionAccel[T num.Float](out []T, c *graph.Compressed, el, er []T, slope float64, w int) bool {
	o, ok := any(out).([]float32)
	if !ok || (w != 1 && w != 2 && w != 4 && w != 8) || !useAVX2 || !(slope <= 1) || (w < 8 && w > 1 && !useNarrow) {
		return false
	}
	l, r, s := any(el).([]float32), any(er).([]float32), float32(slope)
	if w == 1 {
		forRows(c, func(lo, hi int) { attentionRows1(o, c, l, r, s, lo, hi) })
		return true
	}
	kernel := byWidth(w, attnFwd2, attnFwd4, attnFwd8)
	forRows(c, func(lo, hi int) {
		var buf []float32
		for v := lo; v < hi; v++ {
			a, b := c.Indptr[v], c.Indptr[v+1]
			if a == b {
				continue
			}
			n := int(b - a)
			buf = grow(buf, n*w)
			kernel(&o[0], &l[0], &r[v*w], &c.Indices[a], &c.EIDs[a], n, &buf[0], s)
		}
	})
	return true
}

// attentionRows computes the groups of rows [lo, hi) of the CSC view c: the
// scores of a group into contiguous scratch with their column maxima, the
// exponentials and sums in place, then the normalised values scattered to
// the edges' rows of out.
func attentionRows[T num.Float](out []T, c *graph.Compressed, el, er []T, slope T, w, lo, hi int) {
	var mbuf [stackWidth]T
	var sbuf [stackWidth]float64
	m, s := stackRow(&mbuf, w), stackRow(&sbuf, w)
	var buf []T
	end := c.Indptr[hi]
	for v := lo; v < hi; v++ {
		a, b := c.Indptr[v], c.Indptr[v+1]
		if a == b {
			continue
		}
		idx := c.Indices[a:b]
		buf = grow(buf, len(idx)*w)
		rv := er[v*w : v*w+w]
		for i, u := range idx {
			if p := a + int64(i); p%ahead == 0 && p+ahead < end {
				touch(c.Indices[p+ahead:min(p+2*ahead, end)], w, el)
			}
			ru := el[int(u)*w : int(u)*w+w]
			x := buf[i*w : i*w+w]
			leaky(x, ru, rv, slope)
			if i == 0 {
				copy(m, x)
				continue
			}
			for h, t := range x[:len(m)] {
				m[h] = max(m[h], t)
			}
		}
		clear(s)
		for i := range idx {
			x := buf[i*w : i*w+w]
			num.ExpSum(x, x, m, s)
		}
		for h := range s {
			s[h] = 1 / s[h]
		}
		for i, e := range c.EIDs[a:b] {
			x, o := buf[i*w:i*w+w], out[int(e)*w:int(e)*w+w]
			for h, r := range s[:len(o)] {
				o[h] = T(float64(x[h]) * r)
			}
		}
	}
}

// leaky sets x[h] = LeakyReLU(a[h] + b[h]) with the given slope, without
// branches (the sign of a score is a coin toss to a branch predictor).
func leaky[T num.Float](x, a, b []T, slope T) {
	a, b = a[:len(x)], b[:len(x)]
	if slope <= 1 {
		for h := range x {
			t := a[h] + b[h]
			x[h] = max(t, t*slope)
		}
		return
	}
	for h := range x {
		t := a[h] + b[h]
		x[h] = min(t, t*slope)
	}
}

// attentionRows1 is attentionRows for one head in float32 with a slope of
// at most 1, the exponentials and their sum by the AVX2 kernel over the
// group's scores, padded to a multiple of 8 with -Inf (whose exponential
// is 0), and the quotients by the float32 reciprocal of the sum, as the
// vector edge softmax computes them.
func attentionRows1(out []float32, c *graph.Compressed, el, er []float32, slope float32, lo, hi int) {
	var buf []float32
	negInf := float32(math.Inf(-1))
	for v := lo; v < hi; v++ {
		a, b := c.Indptr[v], c.Indptr[v+1]
		if a == b {
			continue
		}
		n := int(b - a)
		padded := (n + 7) &^ 7
		buf = grow(buf, padded)
		r, m := er[v], negInf
		for i, u := range c.Indices[a:b] {
			t := el[u] + r
			t = max(t, t*slope)
			buf[i] = t
			m = max(m, t)
		}
		for i := n; i < padded; i++ {
			buf[i] = negInf
		}
		inv := float32(1 / expShift1(&buf[0], padded, m))
		for i, e := range c.EIDs[a:b] {
			out[e] = buf[i] * inv
		}
	}
}

// AttentionBackward overwrites dScore, of length g.NumEdges()*width, with
// the gradient of a loss with respect to the sums el[u*width+h] +
// er[v*width+h] of Attention (before the LeakyReLU), given Attention's
// output y and the gradient dy of the loss with respect to y:
//
//	dScore[e*width+h] = y[e*width+h] * (dy[e*width+h] - sum over e' into v of y[e'*width+h]*dy[e'*width+h]) * d
//
// where d is 1 when the sum is positive and slope otherwise. The gradients
// of el and er are the sums of dScore over each node's out-edges and
// in-edges. el, er, slope and width must be those of the forward call.
// dScore may be y or dy itself but must not overlap them otherwise.
//
// AttentionBackward panics when a length does not match or width is
// negative.
func AttentionBackward[T num.Float](dScore []T, g *graph.Graph, el, er []T, slope float64, y, dy []T, width int) {
	checkLen("dScore", dScore, g, width)
	checkLen("y", y, g, width)
	checkLen("dy", dy, g, width)
	checkScores(g, el, er, width)
	if width == 0 {
		return
	}
	c := g.CSC()
	if attentionBackStream(dScore, g, c, el, er, slope, y, dy, width) || attentionBackAccel(dScore, c, el, er, slope, y, dy, width) {
		return
	}
	if width == 1 {
		forRows(c, func(lo, hi int) { attentionBackRows1(dScore, c, el, er, T(slope), y, dy, lo, hi) })
		return
	}
	forRows(c, func(lo, hi int) { attentionBackRows(dScore, c, el, er, T(slope), y, dy, width, lo, hi) })
}

// attentionBackAccel runs AttentionBackward with the AVX2 kernel and
// reports whether it applied: float32 rows of two, four or eight heads.
func attentionBackAccel[T num.Float](ds []T, c *graph.Compressed, el, er []T, slope float64, y, dy []T, w int) bool {
	d, ok := any(ds).([]float32)
	if !ok || (w != 2 && w != 4 && w != 8) || !useAVX2 || (w < 8 && !useNarrow) {
		return false
	}
	l, r, s := any(el).([]float32), any(er).([]float32), float32(slope)
	yy, dd := any(y).([]float32), any(dy).([]float32)
	kernel := byWidth(w, attnBwd2, attnBwd4, attnBwd8)
	forRows(c, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			a, b := c.Indptr[v], c.Indptr[v+1]
			if a < b {
				kernel(&d[0], &l[0], &r[v*w], &yy[0], &dd[0], &c.Indices[a], &c.EIDs[a], int(b-a), s)
			}
		}
	})
	return true
}

// attentionBackRows computes the groups of rows [lo, hi) of the CSC view c
// in two passes: the sums of y*dy, touching the rows of the edges ahead, and
// the gradient times the LeakyReLU's slope at the recomputed score.
func attentionBackRows[T num.Float](ds []T, c *graph.Compressed, el, er []T, slope T, y, dy []T, w, lo, hi int) {
	var sbuf [stackWidth]float64
	s := stackRow(&sbuf, w)
	end := c.Indptr[hi]
	for v := lo; v < hi; v++ {
		a, b := c.Indptr[v], c.Indptr[v+1]
		if a == b {
			continue
		}
		eids := c.EIDs[a:b]
		clear(s)
		for i, e := range eids {
			if p := a + int64(i); p%ahead == 0 && p+ahead < end {
				touch(c.EIDs[p+ahead:min(p+2*ahead, end)], w, y, dy, ds)
				touch(c.Indices[p+ahead:min(p+2*ahead, end)], w, el)
			}
			o := int(e) * w
			yr, dr := y[o:o+w], dy[o:o+w]
			for h, t := range yr[:len(s)] {
				s[h] += float64(t) * float64(dr[h])
			}
		}
		rv := er[v*w : v*w+w]
		for i, e := range eids {
			o := int(e) * w
			u := int(c.Indices[a+int64(i)])
			ru := el[u*w : u*w+w]
			yr, dr, gr := y[o:o+w], dy[o:o+w], ds[o:o+w]
			for h, t := range s[:len(gr)] {
				d := T(float64(yr[h]) * (float64(dr[h]) - t))
				if ru[h]+rv[h] <= 0 {
					d *= slope
				}
				gr[h] = d
			}
		}
	}
}

// attentionBackRows1 is attentionBackRows for one head: scalar rows, no
// inner loops.
func attentionBackRows1[T num.Float](ds []T, c *graph.Compressed, el, er []T, slope T, y, dy []T, lo, hi int) {
	for v := lo; v < hi; v++ {
		a, b := c.Indptr[v], c.Indptr[v+1]
		eids, idx := c.EIDs[a:b], c.Indices[a:b]
		var s float64
		for _, e := range eids {
			s += float64(y[e]) * float64(dy[e])
		}
		r := er[v]
		for i, e := range eids {
			d := T(float64(y[e]) * (float64(dy[e]) - s))
			if el[idx[i]]+r <= 0 {
				d *= slope
			}
			ds[e] = d
		}
	}
}

// checkScores panics unless el and er hold width scores for each source
// and each destination node of g.
func checkScores[T num.Float](g *graph.Graph, el, er []T, width int) {
	checkNodes("el", el, g.NumSrc(), width)
	checkNodes("er", er, g.NumDst(), width)
}

// byWidth returns the kernel of rows of w heads: k2, k4, or k8 (for 8).
func byWidth[K any](w int, k2, k4, k8 K) K {
	switch w {
	case 2:
		return k2
	case 4:
		return k4
	}
	return k8
}

// grow returns buf when it holds n elements, a new slice of n otherwise:
// scratch a goroutine reuses from group to group.
func grow[E num.Float](buf []E, n int) []E {
	if len(buf) < n {
		return make([]E, n)
	}
	return buf
}

// checkNodes panics unless x holds width values for each of n nodes.
func checkNodes[T num.Float](name string, x []T, n, width int) {
	if want := n * width; len(x) != want {
		panic(fmt.Sprintf("edgesoftmax: %s has length %d, want %d (%d nodes × %d)", name, len(x), want, n, width))
	}
}
