package sddmm

import (
	"runtime"
	"unsafe"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
)

const (
	// block is the largest number of edges resolved at once.
	block = 256
	// aheadBytes is about how many bytes of operand rows are requested
	// ahead of the arithmetic: enough misses in flight to hide memory
	// latency, few enough to stay in L1.
	aheadBytes = 16 << 10
	// lineBytes is the cache line size that touching steps by.
	lineBytes = 64
)

// kernel is one Forward call, split over edge ranges by run.
type kernel[T num.Float] struct {
	out, lhs, rhs []T
	lidx, ridx    []int32 // per-edge operand rows; nil means the edge ID
	op            Op
	p             bcast.Plan
	dense         bool // Dot without broadcasting
	step          int  // edges per sub-block, at most block
	touchL        bool // touch the lhs rows of the next sub-block ahead
	touchR        bool // and the rhs rows
	dot8          bool // run the AVX2 kernel of eight-element heads
	dot24         bool // or that of heads of 2 or 4 elements
	bin8          bool // run the AVX2 kernel of elementwise operations
}

// newKernel prepares the kernel of one Forward call.
func newKernel[T num.Float](out []T, op Op, lhs []T, lidx []int32, rhs []T, ridx []int32, p bcast.Plan) *kernel[T] {
	k := &kernel[T]{out: out, lhs: lhs, rhs: rhs, lidx: lidx, ridx: ridx, op: op, p: p}
	k.dense = p.Dot && denseDot(&p)
	var z T
	size := int(unsafe.Sizeof(z))
	rowBytes := size * (p.LhsLen + p.RhsLen + p.OutLen)
	k.step = min(block, max(4, aheadBytes/max(rowBytes, 1)))
	// Rows gathered through node IDs miss the cache once the table outgrows
	// it; edge rows are read in order and left to the hardware prefetcher.
	k.touchL = lidx != nil && len(lhs)*size > cacheBytes
	k.touchR = ridx != nil && op != CopyLHS && len(rhs)*size > cacheBytes
	k.dot8 = dot8Accel(k)
	k.dot24 = dot24Accel(k)
	k.bin8 = bin8Accel(k)
	return k
}

// cacheBytes is about the last-level cache share a gather table can count
// on: smaller tables stay cached and touching their rows ahead costs more
// than it saves; larger ones miss, and touching ahead overlaps the misses
// (TUNING.md).
const cacheBytes = 8 << 20

// run computes the output rows of edges [lo, hi). The operand rows of each
// sub-block of k.step edges are requested (touched) while the previous
// sub-block is computed, so several cache misses are in flight at once
// instead of one edge's at a time.
func (k *kernel[T]) run(lo, hi int) {
	switch {
	case k.dot8:
		k.runDot8(lo, hi)
		return
	case k.dot24:
		k.runDot24(lo, hi)
		return
	case k.bin8:
		k.runBin8(lo, hi)
		return
	}
	var lbuf, rbuf [2][block]int
	ol := k.p.OutLen
	cur := 0
	la, ra := k.resolve(&lbuf[cur], &rbuf[cur], lo, min(lo+k.step, hi))
	for e0 := lo; e0 < hi; {
		e1 := e0 + len(la)
		var nla, nra []int
		if e1 < hi {
			nla, nra = k.resolve(&lbuf[1-cur], &rbuf[1-cur], e1, min(e1+k.step, hi))
			if k.touchL {
				touch(k.lhs, nla, k.p.LhsLen)
			}
			if k.touchR {
				touch(k.rhs, nra, k.p.RhsLen)
			}
		}
		k.compute(k.out[e0*ol:e1*ol], la, ra)
		la, ra, cur, e0 = nla, nra, 1-cur, e1
	}
}

// resolve returns the lhs and rhs rows of edges [lo, hi), written into lb
// and rb.
func (k *kernel[T]) resolve(lb, rb *[block]int, lo, hi int) (la, ra []int) {
	la = fill(lb[:hi-lo], k.lidx, lo)
	if k.op != CopyLHS {
		ra = fill(rb[:hi-lo], k.ridx, lo)
	}
	return la, ra
}

// compute writes the output rows o of the edges whose operand rows are la
// and ra.
func (k *kernel[T]) compute(o []T, la, ra []int) {
	p := &k.p
	switch {
	case k.op == CopyLHS && p.Trivial:
		copyRows(o, k.lhs, la)
	case k.op == CopyLHS:
		copyOff(o, k.lhs, la, p.LhsLen, p.LhsOff)
	case k.op == Dot && k.dense:
		dotRows(o, k.lhs, la, k.rhs, ra, p.ReduceLen)
	case k.op == Dot:
		dotOff(o, k.lhs, la, p.LhsLen, p.LhsOff, k.rhs, ra, p.RhsLen, p.RhsOff, p.ReduceLen)
	case p.Trivial && p.OutLen == 1:
		binaryScalar(k.op, o, k.lhs, la, k.rhs, ra)
	case p.Trivial:
		binaryRows(k.op, o, k.lhs, la, k.rhs, ra)
	default:
		binaryOff(k.op, o, k.lhs, la, p.LhsLen, p.LhsOff, k.rhs, ra, p.RhsLen, p.RhsOff)
	}
}

// touch loads one element of every cache line of rows rows of x, rows of l
// elements, so that the arithmetic that follows finds them cached: issued
// back to back, the misses overlap instead of stalling one edge at a time.
// The values are folded into an integer kept alive, so that the loads are
// not optimised away; a float sum would chain them through the adder's
// latency. (PREFETCHT0 from assembly measured slower: a batch of prefetches
// this large overflows the miss buffers, and smaller batches were no faster
// than these loads.)
func touch[T num.Float](x []T, rows []int, l int) {
	var z T
	step := lineBytes / int(unsafe.Sizeof(z))
	var s int
	for _, r := range rows {
		xr := x[r*l : (r+1)*l]
		for j := 0; j < len(xr); j += step {
			s += int(xr[j])
		}
	}
	runtime.KeepAlive(s)
}

// fill writes the operand row of edges e0, e0+1, … into buf: idx[e] when
// idx is not nil, e itself otherwise.
func fill(buf []int, idx []int32, e0 int) []int {
	if idx == nil {
		for i := range buf {
			buf[i] = e0 + i
		}
		return buf
	}
	for i, r := range idx[e0 : e0+len(buf)] {
		buf[i] = int(r)
	}
	return buf
}

// denseDot reports whether a dot plan reads both operands without
// broadcasting: output k reduces elements [k*ReduceLen, (k+1)*ReduceLen) of
// both rows.
func denseDot(p *bcast.Plan) bool {
	d := p.ReduceLen
	if p.LhsLen != p.OutLen*d || p.RhsLen != p.OutLen*d {
		return false
	}
	for k := range p.OutLen {
		if p.LhsOff[k] != k*d || p.RhsOff[k] != k*d {
			return false
		}
	}
	return true
}

// copyRows copies row la[i] of x into row i of o; rows of both have the
// length len(o)/len(la).
func copyRows[T num.Float](o, x []T, la []int) {
	if len(la) == 0 {
		return
	}
	l := len(o) / len(la)
	if l == 1 {
		o = o[:len(la)]
		for i, r := range la {
			o[i] = x[r]
		}
		return
	}
	for i, r := range la {
		copy(o[i*l:(i+1)*l], x[r*l:(r+1)*l])
	}
}

// copyOff broadcasts row la[i] of x, of length xl, into row i of o through
// the offset table off.
func copyOff[T num.Float](o, x []T, la []int, xl int, off []int) {
	l := len(off)
	for i, r := range la {
		xr := x[r*xl : (r+1)*xl]
		or := o[i*l : (i+1)*l]
		for k, j := range off[:len(or)] {
			or[k] = xr[j]
		}
	}
}
