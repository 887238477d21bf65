package sddmm

import "github.com/gnngo/gnn/internal/num"

// Drivers of the AVX2 kernel (rows8_amd64.s) for float32 rows made of
// blocks of eight floats: dot products of eight-element heads, and the
// elementwise operations and copies on rows of a multiple of eight floats
// (u_add_v, u_mul_v, copy_u, … on GAT's heads).
//
// Tuning, chosen with the 100k-node, 10M-edge benchmarks; the figures are in
// TUNING.md at the repository root.
const (
	// rows8Chunk is the number of edges per call of the kernel: calls stay
	// short (assembly is not preempted), and prefetching runs on across
	// them.
	rows8Chunk = 1 << 12
	// rows8Dist is how many edges ahead the kernel prefetches gathered
	// rows, as spmm's prefetchDist: prefetching from the kernel beat
	// blocks whose rows Go touched ahead (kernel.run). Non-temporal stores
	// of the output made no measurable difference.
	rows8Dist = 48
)

// The modes of rows8F32.
const (
	modeDot = iota
	modeAdd
	modeSub
	modeMul
	modeDiv
	modeCopy
	modeDot2 // dot products of two-element heads
	modeDot4 // and of four-element heads
)

// dot8Accel reports whether the AVX2 kernel computes the dot products of a
// kernel: float32 on a machine with AVX2, a dense dot over heads of a
// multiple of 8 elements, and rows of a multiple of 64 elements.
func dot8Accel[T num.Float](k *kernel[T]) bool {
	_, f32 := any(k.out).([]float32)
	r := k.p.ReduceLen
	return useAVX2 && f32 && k.dense && k.op == Dot && r%8 == 0 && (k.p.OutLen*r/8)%8 == 0
}

// dot24Accel reports whether the AVX2 kernel computes the dot products of a
// kernel with narrow heads: float32 on a machine with AVX2, a dense dot
// over heads of 2 or 4 elements, and rows of a multiple of 8 elements.
func dot24Accel[T num.Float](k *kernel[T]) bool {
	_, f32 := any(k.out).([]float32)
	r := k.p.ReduceLen
	return useAVX2 && f32 && k.dense && k.op == Dot && (r == 2 || r == 4) && (k.p.OutLen*r)%8 == 0
}

// bin8Accel reports whether the AVX2 kernel computes the elementwise
// operation or copy of a kernel: float32 on a machine with AVX2, operands
// and output of one shape (no broadcasting), rows of a multiple of 8
// elements.
func bin8Accel[T num.Float](k *kernel[T]) bool {
	_, f32 := any(k.out).([]float32)
	return useAVX2 && f32 && k.p.Trivial && (k.op.Elementwise() || k.op == CopyLHS) && k.p.OutLen%8 == 0
}

// rows8Args returns the index arrays of the kernel's operands as the
// assembly takes them (nil for edge rows) and the prefetch distance for
// edges [lo, hi): none when no table outgrows the cache, as kernel.run
// touches rows only then.
func (k *kernel[T]) rows8Args(lo, hi int) (la, ra *int32, dist int) {
	if k.lidx != nil {
		la = &k.lidx[0]
	}
	if k.ridx != nil {
		ra = &k.ridx[0]
	}
	dist = rows8Dist
	if !k.touchL && !k.touchR {
		dist = hi - lo // nothing to prefetch: tables in cache, rows in order
	}
	return la, ra, dist
}

// runDot8 computes the output rows of edges [lo, hi) with the AVX2 kernel,
// in calls of rows8Chunk edges. The operand tables have been checked
// against the graph, whose indices are in range, so the kernel, which does
// no bounds checks, stays within them.
func (k *kernel[T]) runDot8(lo, hi int) {
	o := any(k.out).([]float32)
	x, y := any(k.lhs).([]float32), any(k.rhs).([]float32)
	h := k.p.OutLen
	_ = o[hi*h-1] // the kernel writes the rows of edges lo to hi-1
	la, ra, dist := k.rows8Args(lo, hi)
	r := k.p.ReduceLen / 8
	rowBytes := h * r * 32
	if r == 1 {
		for e := lo; e < hi; e += rows8Chunk {
			rows8F32(modeDot, &o[e*h], &x[0], &y[0], la, ra, e, min(rows8Chunk, hi-e), hi-e, rowBytes, dist)
		}
		return
	}
	// Heads of 8r elements: the kernel computes the dot products of their
	// r eight-element parts into part, which are then summed in order.
	part := make([]float32, min(rows8Chunk, hi-lo)*h*r)
	for e := lo; e < hi; e += rows8Chunk {
		n := min(rows8Chunk, hi-e)
		rows8F32(modeDot, &part[0], &x[0], &y[0], la, ra, e, n, hi-e, rowBytes, dist)
		sumParts(o[e*h:(e+n)*h], part[:n*h*r], r)
	}
}

// runDot24 computes the output rows of edges [lo, hi) of a dot product over
// heads of 2 or 4 elements with the AVX2 kernel, as runDot8 those of
// eight-element heads: each block of eight floats of the two rows gives
// four (or two) dot products, in the order of dot2 (dot4).
//
// The kernel prefetches the gathered rows of edges rows8Dist ahead whatever
// the size of the tables: rows this short leave the edge loop waiting on
// memory even when a table is below cacheBytes (8 heads of 2 on 100k
// nodes, a 6.4 MB table: 450-860 CPU ms per 10M edges without, 200-290
// with), and a prefetch of a cached line costs next to nothing.
func (k *kernel[T]) runDot24(lo, hi int) {
	o := any(k.out).([]float32)
	x, y := any(k.lhs).([]float32), any(k.rhs).([]float32)
	h := k.p.OutLen
	_ = o[hi*h-1]
	la, ra, _ := k.rows8Args(lo, hi)
	dist := rows8Dist
	mode := modeDot2
	if k.p.ReduceLen == 4 {
		mode = modeDot4
	}
	rowBytes := h * k.p.ReduceLen * 4
	for e := lo; e < hi; e += rows8Chunk {
		rows8F32(mode, &o[e*h], &x[0], &y[0], la, ra, e, min(rows8Chunk, hi-e), hi-e, rowBytes, dist)
	}
}

// runBin8 computes the output rows of edges [lo, hi) of an elementwise
// operation or copy with the AVX2 kernel, as runDot8 its dot products. A
// copy reads no rhs: the kernel gets lhs in its place and no rhs index.
func (k *kernel[T]) runBin8(lo, hi int) {
	o := any(k.out).([]float32)
	x := any(k.lhs).([]float32)
	l := k.p.OutLen
	_ = o[hi*l-1]
	la, ra, dist := k.rows8Args(lo, hi)
	y, mode := x, modeCopy
	if k.op != CopyLHS {
		y, mode = any(k.rhs).([]float32), modeAdd+int(k.op-Add)
	} else {
		ra = nil
	}
	for e := lo; e < hi; e += rows8Chunk {
		rows8F32(mode, &o[e*l], &x[0], &y[0], la, ra, e, min(rows8Chunk, hi-e), hi-e, l*4, dist)
	}
}
