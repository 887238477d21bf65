package edgesoftmax

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// AttentionSum overwrites out, of length g.NumDst()*width*feat, with GAT's
// attention-weighted sum of source rows,
//
//	out[(v*width+h)*feat+f] = sum over edges e = (u, v) of a[e*width+h] * z[(u*width+h)*feat+f]
//
// where a is Attention(g, el, er, slope) and z holds width heads of feat
// features per source node. The attention exists only per destination
// group, in scratch: nothing per edge is stored, so a training step that
// uses AttentionSumBackward keeps one (N, width) row of statistics per
// destination instead of the (E, width) attention, its gradient and the
// scores' gradient. A destination without in-edges gets zeros.
//
// The attention of an edge is computed as in the Go kernels of Attention,
// except that the float64 reciprocal of each group's sum is rounded to T
// before it multiplies (as the backward's statistics keep it), and the sum
// over a group's edges runs in CSC order in T, as package spmm's
// Go kernels sum: in float64 the results are those of Attention followed
// by spmm's u_mul_e sum; in float32 they differ from the vector kernels by
// rounding (see the package tests).
//
// AttentionSum panics when a length does not match or a width is negative:
// internal invariants that the op layer checks before calling.
func AttentionSum[T num.Float](out []T, g *graph.Graph, z, el, er []T, slope float64, width, feat int) {
	checkSum("AttentionSum", g, z, el, er, width, feat)
	checkNodes("out", out, g.NumDst(), width*feat)
	if width == 0 || feat == 0 {
		clear(out)
		return
	}
	c := g.CSC()
	forRows(c, func(lo, hi int) {
		var sc groupScratch[T]
		sc.init(width)
		wf := width * feat
		ahead := newAhead(c, lo, hi)
		for v := lo; v < hi; v++ {
			o := out[v*wf : v*wf+wf]
			clear(o)
			idx, att := sc.attend(&ahead, v, el, er, z, T(slope), wf)
			for i, u := range idx {
				axpyHeads(o, att[i*width:i*width+width], z[int(u)*wf:int(u)*wf+wf], feat)
			}
		}
	})
}

// StatsLen is the length of the statistics AttentionSumBackwardDst writes
// for AttentionSumBackwardSrc: three rows of width per destination (the
// maximum score, the reciprocal of the sum of exponentials, and the sum of
// the attention times its gradient).
func StatsLen(g *graph.Graph, width int) int { return 3 * g.NumDst() * width }

// AttentionSumBackwardDst is the first pass of AttentionSum's backward,
// given the gradient dout of a loss with respect to AttentionSum's out: it
// overwrites der, of length g.NumDst()*width, with the gradient with
// respect to er, and stats, of length StatsLen(g, width), with what
// AttentionSumBackwardSrc needs per destination. It walks every
// destination's in-edges once, recomputing their attention a and its
// gradient da[e,h] = <z[u,h,:], dout[v,h,:]> into scratch; the gradient of
// the score sum el[u]+er[v] of an edge is
//
//	ds[e,h] = a[e,h] * (da[e,h] - c[v,h]) * d,   c[v,h] = sum over e' into v of a[e',h] * da[e',h]
//
// (d is 1 when the sum is positive and slope otherwise) and der[v,h] sums
// it over v's in-edges.
func AttentionSumBackwardDst[T num.Float](der, stats []T, g *graph.Graph, z, el, er []T, slope float64, dout []T, width, feat int) {
	checkSum("AttentionSumBackwardDst", g, z, el, er, width, feat)
	checkNodes("der", der, g.NumDst(), width)
	checkNodes("dout", dout, g.NumDst(), width*feat)
	checkNodes("stats", stats, g.NumDst(), 3*width)
	if width == 0 {
		return
	}
	c := g.CSC()
	forRows(c, func(lo, hi int) {
		var sc groupScratch[T]
		sc.init(width)
		var dbuf []T
		var cbuf [stackWidth]float64
		cs := stackRow(&cbuf, width)
		wf, w := width*feat, width
		ahead := newAhead(c, lo, hi)
		for v := lo; v < hi; v++ {
			dr, st := der[v*w:v*w+w], stats[3*v*w:3*v*w+3*w]
			clear(dr)
			clear(st)
			idx, att := sc.attend(&ahead, v, el, er, z, T(slope), wf)
			if idx == nil {
				continue
			}
			rv := er[v*w : v*w+w]
			n := len(idx)
			dbuf = grow(dbuf, n*w)
			dv := dout[v*wf : v*wf+wf]
			clear(cs)
			for i, u := range idx {
				zu := z[int(u)*wf : int(u)*wf+wf]
				da := dbuf[i*w : i*w+w]
				dotHeads(da, zu, dv, feat)
				for h, y := range att[i*w : i*w+w] {
					cs[h] += float64(y) * float64(da[h])
				}
			}
			for i, u := range idx {
				ru := el[int(u)*w : int(u)*w+w]
				da, y := dbuf[i*w:i*w+w], att[i*w:i*w+w]
				for h, t := range cs {
					d := T(float64(y[h]) * (float64(da[h]) - t))
					if ru[h]+rv[h] <= 0 {
						d *= T(slope)
					}
					dr[h] += d
				}
			}
			copy(st[:w], sc.m)
			copy(st[w:2*w], sc.inv)
			for h, t := range cs {
				st[2*w+h] = T(t)
			}
		}
	})
}

// AttentionSumBackwardSrc is the second pass of AttentionSum's backward:
// given stats from AttentionSumBackwardDst on the same inputs and dout, it
// overwrites dz, of length g.NumSrc()*width*feat, with the gradient with
// respect to z, and del, of length g.NumSrc()*width, with that with
// respect to el. It walks every source's out-edges once (the CSR view),
// recomputing each edge's attention from el, er and its destination's
// statistics, with the bits of the first pass:
//
//	dz[u,h,:] = sum over e = (u, v) of a[e,h] * dout[v,h,:]
//	del[u,h]  = sum over e = (u, v) of ds[e,h]
func AttentionSumBackwardSrc[T num.Float](dz, del []T, g *graph.Graph, z, el, er []T, slope float64, dout, stats []T, width, feat int) {
	checkSum("AttentionSumBackwardSrc", g, z, el, er, width, feat)
	checkNodes("dz", dz, g.NumSrc(), width*feat)
	checkNodes("del", del, g.NumSrc(), width)
	checkNodes("dout", dout, g.NumDst(), width*feat)
	checkNodes("stats", stats, g.NumDst(), 3*width)
	if width == 0 {
		clear(dz)
		return
	}
	r := g.CSR()
	forRows(r, func(lo, hi int) {
		var abuf, dbuf [stackWidth]T
		var sbuf [stackWidth]float64
		y, da, s := stackRow(&abuf, width), stackRow(&dbuf, width), stackRow(&sbuf, width)
		wf, w := width*feat, width
		sl := T(slope)
		ahead := newAhead(r, lo, hi)
		for u := lo; u < hi; u++ {
			ahead.touch(r.Indptr[u+1], func(idx []int32) { touch(idx, w, er); touch(idx, 3*w, stats); touch(idx, wf, dout) })
			zu, dzu, dl := z[u*wf:u*wf+wf], dz[u*wf:u*wf+wf], del[u*w:u*w+w]
			clear(dzu)
			clear(dl)
			ru := el[u*w : u*w+w]
			for _, v32 := range r.Indices[r.Indptr[u]:r.Indptr[u+1]] {
				v := int(v32)
				st, rv, dv := stats[3*v*w:3*v*w+3*w], er[v*w:v*w+w], dout[v*wf:v*wf+wf]
				leaky(y, ru, rv, sl)
				num.ExpSum(y, y, st[:w], s)
				for h, inv := range st[w : 2*w] {
					y[h] = T(float64(y[h]) * float64(inv))
				}
				dotHeads(da, zu, dv, feat)
				for h, c := range st[2*w : 3*w] {
					d := T(float64(y[h]) * (float64(da[h]) - float64(c)))
					if ru[h]+rv[h] <= 0 {
						d *= sl
					}
					dl[h] += d
				}
				axpyHeads(dzu, y, dv, feat)
			}
		}
	})
}

// aheadCursor remembers how far a goroutine walking the rows [lo, hi) of a
// view has touched (see touch) the node rows its edges gather.
type aheadCursor struct {
	c    *graph.Compressed
	done int64 // edges before done were touched
	end  int64
}

func newAhead(c *graph.Compressed, lo, hi int) aheadCursor {
	return aheadCursor{c: c, done: c.Indptr[lo], end: c.Indptr[hi]}
}

// touch calls fn on the edges' node indices from where the cursor stopped
// to ahead edges past b (the end of the row about to be computed), in
// batches of ahead, so that the row's and the next rows' node rows are
// loaded together before the arithmetic needs them.
func (a *aheadCursor) touch(b int64, fn func(idx []int32)) {
	to := min(b+ahead, a.end)
	for a.done < to {
		n := min(a.done+ahead, to)
		fn(a.c.Indices[a.done:n])
		a.done = n
	}
}

// groupScratch holds a goroutine's scratch for the softmax of one
// destination group at a time: the group's attention (rows of width), and
// per head the maximum score, the sum of exponentials and its reciprocal
// rounded to T.
type groupScratch[T num.Float] struct {
	buf    []T
	m, inv []T
	s      []float64
}

func (sc *groupScratch[T]) init(w int) {
	sc.m, sc.inv, sc.s = make([]T, w), make([]T, w), make([]float64, w)
}

// attend returns the sources of destination v's in-edges (in the view
// ahead walks) and their attention (softmax, with v's row of er), first
// touching ahead the rows of el and of z, wf wide, of the edges up to
// ahead past them; none when v has no in-edges.
func (sc *groupScratch[T]) attend(ahead *aheadCursor, v int, el, er, z []T, slope T, wf int) ([]int32, []T) {
	a, b := ahead.c.Indptr[v], ahead.c.Indptr[v+1]
	if a == b {
		return nil, nil
	}
	w := len(sc.m)
	ahead.touch(b, func(idx []int32) { touch(idx, w, el); touch(idx, wf, z) })
	idx := ahead.c.Indices[a:b]
	return idx, sc.softmax(idx, el, er[v*w:v*w+w], slope)
}

// softmax returns the attention of the edges from idx into a destination
// whose score row is rv, rows of width in idx's order, leaving the
// group's maxima and reciprocal sums in sc.m and sc.inv. The exponentials
// are num.ExpSum's, as AttentionSumBackwardSrc recomputes them edge by
// edge.
func (sc *groupScratch[T]) softmax(idx []int32, el, rv []T, slope T) []T {
	w, n := len(rv), len(idx)
	sc.buf = grow(sc.buf, n*w)
	m := sc.m
	for i, u := range idx {
		x := sc.buf[i*w : i*w+w]
		leaky(x, el[int(u)*w:int(u)*w+w], rv, slope)
		if i == 0 {
			copy(m, x)
			continue
		}
		for h, t := range x {
			m[h] = max(m[h], t)
		}
	}
	clear(sc.s)
	for i := range n {
		x := sc.buf[i*w : i*w+w]
		num.ExpSum(x, x, m, sc.s)
	}
	for h, t := range sc.s {
		sc.inv[h] = T(1 / t)
	}
	att := sc.buf[:n*w]
	for i := range n {
		x := att[i*w : i*w+w]
		for h, r := range sc.inv {
			x[h] = T(float64(x[h]) * float64(r))
		}
	}
	return att
}

// dotHeads sets d[h] = <a[h*feat:(h+1)*feat], b[h*feat:(h+1)*feat]> for
// every head h of d.
func dotHeads[T num.Float](d, a, b []T, feat int) {
	if feat == 8 { // GAT's usual 8 features a head, without bounds checks
		a, b = a[:len(d)*8], b[:len(d)*8]
		for h := range d {
			d[h] = num.Dot8((*[8]T)(a[h*8:]), (*[8]T)(b[h*8:]))
		}
		return
	}
	for h := range d {
		ar, br := a[h*feat:h*feat+feat], b[h*feat:h*feat+feat]
		var t T
		for k, x := range ar {
			t += x * br[k]
		}
		d[h] = t
	}
}

// axpyHeads adds y[h] * x[h*feat:(h+1)*feat] to o[h*feat:(h+1)*feat] for
// every head h of y.
func axpyHeads[T num.Float](o, y, x []T, feat int) {
	if feat == 8 {
		o, x = o[:len(y)*8], x[:len(y)*8]
		for h, a := range y {
			r, q := (*[8]T)(o[h*8:]), (*[8]T)(x[h*8:])
			r[0] += a * q[0]
			r[1] += a * q[1]
			r[2] += a * q[2]
			r[3] += a * q[3]
			r[4] += a * q[4]
			r[5] += a * q[5]
			r[6] += a * q[6]
			r[7] += a * q[7]
		}
		return
	}
	for h, a := range y {
		r, q := o[h*feat:h*feat+feat], x[h*feat:h*feat+feat]
		for k, t := range q {
			r[k] += a * t
		}
	}
}

// checkSum panics unless z, el and er fit g, width heads and feat
// features, both non-negative.
func checkSum[T num.Float](name string, g *graph.Graph, z, el, er []T, width, feat int) {
	if width < 0 || feat < 0 {
		panic(fmt.Sprintf("edgesoftmax: %s: negative width %d or features %d", name, width, feat))
	}
	checkNodes("z", z, g.NumSrc(), width*feat)
	checkScores(g, el, er, width)
}
