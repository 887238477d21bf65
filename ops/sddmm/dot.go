package sddmm

import (
	"slices"

	"github.com/gnngo/gnn/internal/num"
)

// sumParts sets o[i] to the sum, in order, of the r parts part[i*r:i*r+r].
func sumParts(o, part []float32, r int) {
	part = part[:len(o)*r]
	if r == 2 {
		i := 0
		for ; i+8 <= len(o); i += 8 {
			q, p := (*[8]float32)(o[i:]), (*[16]float32)(part[2*i:])
			q[0], q[1], q[2], q[3] = p[0]+p[1], p[2]+p[3], p[4]+p[5], p[6]+p[7]
			q[4], q[5], q[6], q[7] = p[8]+p[9], p[10]+p[11], p[12]+p[13], p[14]+p[15]
		}
		for ; i < len(o); i++ {
			o[i] = part[2*i] + part[2*i+1]
		}
		return
	}
	for i := range o {
		var v float32
		for _, p := range part[i*r : i*r+r] {
			v += p
		}
		o[i] = v
	}
}

// dotRows handles a dot product without broadcasting: element h of row i of
// o is the dot product of segment h, of length d, of row la[i] of x and of row
// ra[i] of y. Rows of x and y hold len(o)/len(la)*d elements.
func dotRows[T num.Float](o, x []T, la []int, y []T, ra []int, d int) {
	if len(la) == 0 {
		return
	}
	h := len(o) / len(la)
	l := h * d
	ra = ra[:len(la)]
	switch d {
	case 2:
		// Two- and four-element heads (GAT's narrow heads): the fixed
		// order of the AVX2 kernel (rows8_amd64.s), so that both paths give
		// the same bits.
		for i, r := range la {
			or := o[i*h : (i+1)*h]
			xr := x[r*l : (r+1)*l]
			yr := y[ra[i]*l : (ra[i]+1)*l]
			for k := range or {
				or[k] = dot2((*[2]T)(xr[k*2:]), (*[2]T)(yr[k*2:]))
			}
		}
		return
	case 4:
		for i, r := range la {
			or := o[i*h : (i+1)*h]
			xr := x[r*l : (r+1)*l]
			yr := y[ra[i]*l : (ra[i]+1)*l]
			for k := range or {
				or[k] = dot4((*[4]T)(xr[k*4:]), (*[4]T)(yr[k*4:]))
			}
		}
		return
	}
	if d != 8 && d > 0 && h > 0 && useAVX2 {
		if of, ok := any(o).([]float32); ok {
			// Other widths (GAT's output layer: one head of as many
			// floats as classes) in the order of dot, in assembly.
			xf, yf := any(x).([]float32), any(y).([]float32)
			_ = of[len(la)*h-1]
			_, _ = xf[(slices.Max(la)+1)*l-1], yf[(slices.Max(ra)+1)*l-1]
			dotPairsF32(&of[0], &xf[0], &yf[0], &la[0], &ra[0], len(la), h, d, dotPairsDist)
			return
		}
	}
	if d == 8 {
		// Eight-element heads (the attention shape): one bounds check per
		// head and a balanced sum tree.
		for i, r := range la {
			or := o[i*h : (i+1)*h]
			xr := x[r*l : (r+1)*l]
			yr := y[ra[i]*l : (ra[i]+1)*l]
			for k := range or {
				or[k] = dot8((*[8]T)(xr[k*8:]), (*[8]T)(yr[k*8:]))
			}
		}
		return
	}
	for i, r := range la {
		or := o[i*h : (i+1)*h]
		xr := x[r*l : (r+1)*l]
		yr := y[ra[i]*l : (ra[i]+1)*l]
		for k := range or {
			or[k] = dot(xr[k*d:(k+1)*d], yr[k*d:(k+1)*d])
		}
	}
}

// dotOff handles a broadcasting dot product: element k of an output row sums
// x[xoff[k]+j]*y[yoff[k]+j] over j < d, within rows of length xl and yl.
func dotOff[T num.Float](o, x []T, la []int, xl int, xoff []int, y []T, ra []int, yl int, yoff []int, d int) {
	l := len(xoff)
	ra = ra[:len(la)]
	yoff = yoff[:l]
	for i, r := range la {
		or := o[i*l : (i+1)*l]
		xr := x[r*xl : (r+1)*xl]
		yr := y[ra[i]*yl : (ra[i]+1)*yl]
		for k := range or {
			or[k] = dot(xr[xoff[k]:xoff[k]+d], yr[yoff[k]:yoff[k]+d])
		}
	}
}

// dot8 returns the dot product of two 8-element vectors, summed as a
// balanced tree.
func dot8[T num.Float](a, b *[8]T) T {
	return ((a[0]*b[0] + a[1]*b[1]) + (a[2]*b[2] + a[3]*b[3])) +
		((a[4]*b[4] + a[5]*b[5]) + (a[6]*b[6] + a[7]*b[7]))
}

// dot2 returns the dot product of two 2-element vectors: the two products,
// each rounded (the conversions forbid fusing a product into the sum, as
// the kernel does not fuse), then their sum.
func dot2[T num.Float](a, b *[2]T) T {
	return T(a[0]*b[0]) + T(a[1]*b[1])
}

// dot4 returns the dot product of two 4-element vectors, summed as a
// balanced tree of rounded products, the order of the AVX2 kernel.
func dot4[T num.Float](a, b *[4]T) T {
	return (T(a[0]*b[0]) + T(a[1]*b[1])) + (T(a[2]*b[2]) + T(a[3]*b[3]))
}

// dot returns the dot product of a and b, which have the same length, in
// two interleaved partial sums: a fixed order, so results do not depend on
// scheduling. (Chunks of dot8 measured slower for 16-element segments.)
// Each product is rounded before its sum (the conversions forbid fusing
// them, as the assembly of dotPairsF32 does not fuse either).
func dot[T num.Float](a, b []T) T {
	b = b[:len(a)]
	var s0, s1 T
	j := 0
	for ; j+1 < len(a); j += 2 {
		s0 += T(a[j] * b[j])
		s1 += T(a[j+1] * b[j+1])
	}
	if j < len(a) {
		s0 += T(a[j] * b[j])
	}
	return s0 + s1
}

// dotPairsDist is how many edges ahead dotPairsF32 prefetches the gathered
// rows, as rows8Dist.
const dotPairsDist = rows8Dist
