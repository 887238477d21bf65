package spmm

import "github.com/gnngo/gnn/internal/num"

// Row primitives of the hot paths, in pure Go. Go does not vectorise, so
// they unroll over four edges at a time: each output element is loaded and
// stored once per four edges instead of once per edge, and the four source
// rows are resliced to len(o) so the compiler drops the bounds checks. The
// additions into each element still happen one edge after another, in the
// order of idx, so results match a plain per-edge loop bit for bit.

// index is the type of a row index: source node IDs are int32, edge IDs int64.
type index interface{ ~int32 | ~int64 }

// addRows adds to o the rows idx[0], idx[1], ... of x, whose rows start
// stride elements apart; o has at most stride elements.
func addRows[T num.Float, I index](o, x []T, idx []I, stride int) {
	f := len(o)
	j := 0
	for ; j+4 <= len(idx); j += 4 {
		x0 := x[int(idx[j])*stride:][:f]
		x1 := x[int(idx[j+1])*stride:][:f]
		x2 := x[int(idx[j+2])*stride:][:f]
		x3 := x[int(idx[j+3])*stride:][:f]
		for k := range o {
			o[k] = o[k] + x0[k] + x1[k] + x2[k] + x3[k]
		}
	}
	for ; j < len(idx); j++ {
		x0 := x[int(idx[j])*stride:][:f]
		for k := range o {
			o[k] += x0[k]
		}
	}
}

// addScaledRows adds w[j] times row idx[j] of x to o, for each j in order.
func addScaledRows[T num.Float](o, x []T, idx []int32, w []T) {
	f := len(o)
	w = w[:len(idx)]
	j := 0
	for ; j+4 <= len(idx); j += 4 {
		w0, w1, w2, w3 := w[j], w[j+1], w[j+2], w[j+3]
		x0 := x[int(idx[j])*f:][:f]
		x1 := x[int(idx[j+1])*f:][:f]
		x2 := x[int(idx[j+2])*f:][:f]
		x3 := x[int(idx[j+3])*f:][:f]
		for k := range o {
			o[k] = o[k] + w0*x0[k] + w1*x1[k] + w2*x2[k] + w3*x3[k]
		}
	}
	for ; j < len(idx); j++ {
		w0 := w[j]
		x0 := x[int(idx[j])*f:][:f]
		for k := range o {
			o[k] += w0 * x0[k]
		}
	}
}

// addBlockScaledRows is addScaledRows with one weight per block of b
// consecutive elements: for edge j, element k of o gets
// w[j*h + k/b] * x[idx[j]*len(o) + k], where h = len(o)/b (heads).
func addBlockScaledRows[T num.Float](o, x []T, idx []int32, w []T, b int) {
	f := len(o)
	h := f / b
	w = w[:len(idx)*h]
	j := 0
	for ; j+4 <= len(idx); j += 4 {
		r0 := x[int(idx[j])*f:][:f]
		r1 := x[int(idx[j+1])*f:][:f]
		r2 := x[int(idx[j+2])*f:][:f]
		r3 := x[int(idx[j+3])*f:][:f]
		wj := w[j*h:][:4*h]
		for hh := range h {
			w0, w1, w2, w3 := wj[hh], wj[h+hh], wj[2*h+hh], wj[3*h+hh]
			lo := hh * b
			os := o[lo:][:b]
			x0, x1, x2, x3 := r0[lo:][:b], r1[lo:][:b], r2[lo:][:b], r3[lo:][:b]
			for d := range os {
				os[d] = os[d] + w0*x0[d] + w1*x1[d] + w2*x2[d] + w3*x3[d]
			}
		}
	}
	for ; j < len(idx); j++ {
		r0 := x[int(idx[j])*f:][:f]
		wj := w[j*h:][:h]
		for hh, w0 := range wj {
			lo := hh * b
			os := o[lo:][:b]
			x0 := r0[lo:][:b]
			for d := range os {
				os[d] += w0 * x0[d]
			}
		}
	}
}

// maxRows folds rows idx[j] of x (stride elements apart) into o by
// element-wise maximum, in order; when a is not nil, a[k] receives ids[j]
// whenever row j's element k is strictly greater than o[k], so ties keep
// the earlier row.
func maxRows[T num.Float, I index](o []T, a []int64, x []T, idx []I, ids []int32, stride int) {
	f := len(o)
	ids = ids[:len(idx)]
	if a == nil {
		for _, r := range idx {
			xr := x[int(r)*stride:][:f]
			for k, v := range xr {
				if v > o[k] {
					o[k] = v
				}
			}
		}
		return
	}
	a = a[:f]
	for j, r := range idx {
		xr := x[int(r)*stride:][:f]
		id := int64(ids[j])
		for k, v := range xr {
			if v > o[k] {
				o[k] = v
				a[k] = id
			}
		}
	}
}

// minRows is maxRows with the minimum.
func minRows[T num.Float, I index](o []T, a []int64, x []T, idx []I, ids []int32, stride int) {
	f := len(o)
	ids = ids[:len(idx)]
	if a == nil {
		for _, r := range idx {
			xr := x[int(r)*stride:][:f]
			for k, v := range xr {
				if v < o[k] {
					o[k] = v
				}
			}
		}
		return
	}
	a = a[:f]
	for j, r := range idx {
		xr := x[int(r)*stride:][:f]
		id := int64(ids[j])
		for k, v := range xr {
			if v < o[k] {
				o[k] = v
				a[k] = id
			}
		}
	}
}

// foldMax folds one message into o by element-wise maximum, recording id in
// a (when not nil) where the message is strictly greater.
func foldMax[T num.Float](o []T, a []int64, msg []T, id int64) {
	msg = msg[:len(o)]
	if a == nil {
		for k, v := range msg {
			if v > o[k] {
				o[k] = v
			}
		}
		return
	}
	a = a[:len(o)]
	for k, v := range msg {
		if v > o[k] {
			o[k] = v
			a[k] = id
		}
	}
}

// foldMin is foldMax with the minimum.
func foldMin[T num.Float](o []T, a []int64, msg []T, id int64) {
	msg = msg[:len(o)]
	if a == nil {
		for k, v := range msg {
			if v < o[k] {
				o[k] = v
			}
		}
		return
	}
	a = a[:len(o)]
	for k, v := range msg {
		if v < o[k] {
			o[k] = v
			a[k] = id
		}
	}
}

// addTo adds x to o element-wise.
func addTo[T num.Float](o, x []T) {
	x = x[:len(o)]
	for k := range o {
		o[k] += x[k]
	}
}
