package spmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// extreme is Forward for the Max (isMax) and Min reducers. Each row starts
// from its first in-edge's message, so no ±Inf sentinel is needed, and rows
// without in-edges get 0 and arg -1.
func extreme[T num.Float](out []T, arg []int64, c *graph.Compressed, l *layout, u, e []T, isMax bool) {
	f := l.outLen
	copyU := l.op == CopyU && l.lhsOff == nil
	copyE := l.op == CopyE && l.rhsOff == nil
	lo, ro := l.tables()
	indptr, idx, eids := c.Indptr, c.Indices, c.EIDs
	forRows(c, f, func(rlo, rhi int) {
		if copyU && extremeAccel(out, arg, u, c, f, rlo, rhi, isMax) {
			return
		}
		var msg []T
		if !copyU && !copyE {
			msg = make([]T, f)
		}
		for v := rlo; v < rhi; v++ {
			o := out[v*f:][:f]
			var a []int64
			if arg != nil {
				a = arg[v*f:][:f]
			}
			s, t := int(indptr[v]), int(indptr[v+1])
			if s == t {
				clearExtreme(o, a)
				continue
			}
			for k := range a {
				a[k] = int64(eids[s])
			}
			switch {
			case copyU:
				foldRows(o, a, u, idx[s:t], eids[s:t], isMax)
			case copyE:
				foldRows(o, a, e, eids[s:t], eids[s:t], isMax)
			default:
				message(o, row(u, int(idx[s]), l.lhsLen), row(e, int(eids[s]), l.rhsLen), l.op, lo, ro)
				for j := s + 1; j < t; j++ {
					message(msg, row(u, int(idx[j]), l.lhsLen), row(e, int(eids[j]), l.rhsLen), l.op, lo, ro)
					if isMax {
						foldMax(o, a, msg, int64(eids[j]))
					} else {
						foldMin(o, a, msg, int64(eids[j]))
					}
				}
			}
		}
	})
}

// clearExtreme sets the row o of a node without in-edges to 0 and its arg
// row a (nil when not recorded) to -1.
func clearExtreme[T num.Float](o []T, a []int64) {
	clear(o)
	for k := range a {
		a[k] = -1
	}
}

// foldRows sets o to row rows[0] of x and folds in the others by maximum
// (isMax) or minimum, recording ids in a; a already holds ids[0].
func foldRows[T num.Float, I index](o []T, a []int64, x []T, rows []I, ids []int32, isMax bool) {
	f := len(o)
	copy(o, x[int(rows[0])*f:][:f])
	if isMax {
		maxRows(o, a, x, rows[1:], ids[1:], f)
	} else {
		minRows(o, a, x, rows[1:], ids[1:], f)
	}
}
