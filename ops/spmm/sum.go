package spmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// sumPath is the kernel a Sum or Mean call runs.
type sumPath uint8

const (
	sumCopyU   sumPath = iota // copy_u read in place: add source rows (GCN)
	sumCopyE                  // copy_e read in place: add edge rows
	sumScaled                 // mul with per-edge or per-head scalar weights (GAT)
	sumSame                   // binary op on same-shape operands, fused
	sumGeneral                // any plan: message into scratch, then add
)

// weightBatch is the number of edge weights gathered ahead of the rows they
// scale. Loading a batch of weights first lets the processor fetch them all
// at once instead of one miss per edge inside the row loop.
const weightBatch = 256

// maxScaledRhs is the largest e row (number of heads) the scaled path takes.
const maxScaledRhs = 64

func chooseSumPath(l *layout) sumPath {
	switch {
	case l.op == CopyU && l.lhsOff == nil:
		return sumCopyU
	case l.op == CopyE && l.rhsOff == nil:
		return sumCopyE
	case !l.op.Elementwise():
		return sumGeneral
	case l.lhsOff == nil && l.rhsOff == nil:
		return sumSame
	case l.op == Mul && l.block > 0 && l.rhsLen <= maxScaledRhs:
		return sumScaled
	}
	return sumGeneral
}

// scaleBlock is the number of rows a ForwardScaled call computes before it
// scales them, while they are still in cache.
const scaleBlock = 256

// sum is Forward for the Sum and Mean reducers, and with scale (not nil)
// ForwardScaled.
func sum[T num.Float](out []T, c *graph.Compressed, l *layout, u, e []T, mean bool, scale []T) {
	f := l.outLen
	path := chooseSumPath(l)
	lo, ro := l.tables()
	indptr := c.Indptr
	forRows(c, f, func(rlo, rhi int) {
		step := rhi - rlo
		if scale != nil {
			step = scaleBlock
		}
		for b := rlo; b < rhi; b += step {
			end := min(b+step, rhi)
			clear(out[b*f : end*f])
			if !sumAccel(out, c, l, path, u, e, b, end) {
				sumRows(out, c, l, path, u, e, lo, ro, b, end)
			}
			if scale != nil {
				for v := b; v < end; v++ {
					s, o := scale[v], out[v*f:(v+1)*f]
					for k := range o {
						o[k] *= s
					}
				}
			}
		}
		if !mean {
			return
		}
		for v := rlo; v < rhi; v++ {
			if deg := indptr[v+1] - indptr[v]; deg > 1 {
				o := out[v*f:][:f]
				d := T(deg)
				for k := range o {
					o[k] /= d
				}
			}
		}
	})
}

// sumRows is the pure-Go Sum over rows [rlo, rhi) of out, which it expects
// cleared.
func sumRows[T num.Float](out []T, c *graph.Compressed, l *layout, path sumPath, u, e []T, lo, ro []int, rlo, rhi int) {
	f := l.outLen
	indptr, idx, eids := c.Indptr, c.Indices, c.EIDs
	var msg []T
	if path == sumGeneral {
		msg = make([]T, f)
	}
	for v := rlo; v < rhi; v++ {
		o := out[v*f:][:f]
		s, t := int(indptr[v]), int(indptr[v+1])
		switch path {
		case sumCopyU:
			addRows(o, u, idx[s:t], f)
		case sumCopyE:
			addRows(o, e, eids[s:t], f)
		case sumScaled:
			addScaled(o, u, e, idx[s:t], eids[s:t], l.rhsLen, l.block)
		case sumSame:
			for j := s; j < t; j++ {
				addBinaryIdentity(o, u[int(idx[j])*f:][:f], e[int(eids[j])*f:][:f], l.op)
			}
		default:
			for j := s; j < t; j++ {
				message(msg, row(u, int(idx[j]), l.lhsLen), row(e, int(eids[j]), l.rhsLen), l.op, lo, ro)
				addTo(o, msg)
			}
		}
	}
}

// addScaled adds to o the rows idx of u, each scaled by its edge's weights:
// e rows of h elements, one per block of b output elements.
func addScaled[T num.Float](o, u, e []T, idx []int32, eids []int32, h, b int) {
	var wb [weightBatch]T
	per := weightBatch / h
	for len(idx) > 0 {
		n := min(len(idx), per)
		w := wb[:n*h]
		gatherWeights(w, e, eids[:n], h)
		if h == 1 {
			addScaledRows(o, u, idx[:n], w)
		} else {
			addBlockScaledRows(o, u, idx[:n], w, b)
		}
		idx, eids = idx[n:], eids[n:]
	}
}

// row returns row i of x, whose rows have n elements, or nil when x is nil
// (an operand the op does not read).
func row[T num.Float](x []T, i, n int) []T {
	if x == nil {
		return nil
	}
	return x[i*n:][:n]
}

// gatherWeights copies the e rows (h values each) of the edges eids into w.
func gatherWeights[T num.Float](w, e []T, eids []int32, h int) {
	if h == 1 {
		w = w[:len(eids)]
		for j, id := range eids {
			w[j] = e[id]
		}
		return
	}
	if h > gatherCopyMin {
		for j, id := range eids {
			copy(w[j*h:][:h], e[int(id)*h:][:h])
		}
		return
	}
	// Rows of a few heads: a loop, not a call to memmove per edge.
	for j, id := range eids {
		d, s := w[j*h:][:h], e[int(id)*h:][:h]
		for k := range d {
			d[k] = s[k]
		}
	}
}

// gatherCopyMin is the widest e row that gatherWeights copies with a loop
// of its own rather than copy.
const gatherCopyMin = 16
