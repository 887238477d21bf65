package sddmm

import "github.com/gnngo/gnn/internal/num"

// Tuning of the AVX2 kernel (dot_amd64.s), measured on the 100k-node,
// 10M-edge u_dot_v benchmark (8 heads of 8) on a 2-core AMD EPYC virtual
// machine.
const (
	// dot8Chunk is the number of edges per call of the kernel: calls stay
	// short (assembly is not preempted), and prefetching runs on across
	// them.
	dot8Chunk = 1 << 12
	// dot8Dist is how many edges ahead the kernel prefetches gathered
	// rows: 8 to 64 were within noise of each other, and 1.6x faster than
	// the same kernel run on blocks whose rows Go touched ahead (kernel.run);
	// on a later host 48 beat 16 (8x8: 74-80 against 79-101 ms; 64: 71-75
	// against 87-90 ms), as for spmm's prefetchDist.
	// Non-temporal stores of the output made no measurable difference.
	dot8Dist = 48
)

// dot8Accel reports whether the AVX2 kernel computes the dot products of a
// kernel: float32 on a machine with AVX2, a dense dot over heads of a
// multiple of 8 elements, and rows of a multiple of 64 elements.
func dot8Accel[T num.Float](k *kernel[T]) bool {
	_, f32 := any(k.out).([]float32)
	r := k.p.ReduceLen
	return useAVX2 && f32 && k.dense && k.op == Dot && r%8 == 0 && (k.p.OutLen*r/8)%8 == 0
}

// runDot8 computes the output rows of edges [lo, hi) with the AVX2 kernel,
// in calls of dot8Chunk edges. Gathered rows are prefetched when a table
// outgrows the cache, as kernel.run touches them. The operand tables have
// been checked against the graph, whose indices are in range, so the
// kernel, which does no bounds checks, stays within them.
func (k *kernel[T]) runDot8(lo, hi int) {
	o := any(k.out).([]float32)
	x, y := any(k.lhs).([]float32), any(k.rhs).([]float32)
	h := k.p.OutLen
	_ = o[hi*h-1] // the kernel writes the rows of edges lo to hi-1
	var la, ra *int32
	if k.lidx != nil {
		la = &k.lidx[0]
	}
	if k.ridx != nil {
		ra = &k.ridx[0]
	}
	dist := dot8Dist
	if !k.touchL && !k.touchR {
		dist = hi - lo // nothing to prefetch: tables in cache, rows in order
	}
	r := k.p.ReduceLen / 8
	if r == 1 {
		for e := lo; e < hi; e += dot8Chunk {
			dot8F32(&o[e*h], &x[0], &y[0], la, ra, e, min(dot8Chunk, hi-e), hi-e, h, dist)
		}
		return
	}
	// Heads of 8r elements: the kernel computes the dot products of their
	// r eight-element parts into part, which are then summed in order.
	part := make([]float32, min(dot8Chunk, hi-lo)*h*r)
	for e := lo; e < hi; e += dot8Chunk {
		n := min(dot8Chunk, hi-e)
		dot8F32(&part[0], &x[0], &y[0], la, ra, e, n, hi-e, h*r, dist)
		sumParts(o[e*h:(e+n)*h], part[:n*h*r], r)
	}
}

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

// dot returns the dot product of a and b, which have the same length, in
// two interleaved partial sums: a fixed order, so results do not depend on
// scheduling. (Chunks of dot8 measured slower for 16-element segments.)
func dot[T num.Float](a, b []T) T {
	b = b[:len(a)]
	var s0, s1 T
	j := 0
	for ; j+1 < len(a); j += 2 {
		s0 += a[j] * b[j]
		s1 += a[j+1] * b[j+1]
	}
	if j < len(a) {
		s0 += a[j] * b[j]
	}
	return s0 + s1
}
