package sddmm

import (
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/ops/internal/binop"
)

// The elementwise kernels below each handle one block of edges: row i of o
// combines row la[i] of x with row ra[i] of y. The switch on op sits outside
// the loops so that each loop body is a single arithmetic instruction.

// binaryScalar handles rows of one element.
func binaryScalar[T num.Float](op Op, o, x []T, la []int, y []T, ra []int) {
	o = o[:len(la)]
	ra = ra[:len(la)]
	switch op {
	case Add:
		for i, r := range la {
			o[i] = x[r] + y[ra[i]]
		}
	case Sub:
		for i, r := range la {
			o[i] = x[r] - y[ra[i]]
		}
	case Mul:
		for i, r := range la {
			o[i] = x[r] * y[ra[i]]
		}
	case Div:
		for i, r := range la {
			o[i] = x[r] / y[ra[i]]
		}
	}
}

// binaryRows handles operands and output of one shape, len(o)/len(la).
// The edge loop sits inside the switch: a call per edge cost a third of the
// time on 8-element rows. (Unrolling eight elements at a time through array
// pointers measured slower on gathered rows of 8 to 64 elements.)
func binaryRows[T num.Float](op Op, o, x []T, la []int, y []T, ra []int) {
	if len(la) == 0 {
		return
	}
	l := len(o) / len(la)
	ra = ra[:len(la)]
	switch op {
	case Add:
		for i, r := range la {
			or, xr, yr := edgeRows(o, x, y, i, r, ra[i], l)
			for k := range or {
				or[k] = xr[k] + yr[k]
			}
		}
	case Sub:
		for i, r := range la {
			or, xr, yr := edgeRows(o, x, y, i, r, ra[i], l)
			for k := range or {
				or[k] = xr[k] - yr[k]
			}
		}
	case Mul:
		for i, r := range la {
			or, xr, yr := edgeRows(o, x, y, i, r, ra[i], l)
			for k := range or {
				or[k] = xr[k] * yr[k]
			}
		}
	case Div:
		for i, r := range la {
			or, xr, yr := edgeRows(o, x, y, i, r, ra[i], l)
			for k := range or {
				or[k] = xr[k] / yr[k]
			}
		}
	}
}

// edgeRows returns row i of o and rows r of x and s of y, all of length l,
// the x and y rows resliced to the length of the o row.
func edgeRows[T num.Float](o, x, y []T, i, r, s, l int) (or, xr, yr []T) {
	or = o[i*l : (i+1)*l]
	return or, x[r*l : (r+1)*l][:len(or)], y[s*l : (s+1)*l][:len(or)]
}

// binaryOff handles broadcasting through offset tables: element k of an
// output row reads xoff[k] of an x row (length xl) and yoff[k] of a y row
// (length yl).
func binaryOff[T num.Float](op Op, o, x []T, la []int, xl int, xoff []int, y []T, ra []int, yl int, yoff []int) {
	l := len(xoff)
	ra = ra[:len(la)]
	for i, r := range la {
		binop.Gather(op, o[i*l:(i+1)*l], x[r*xl:(r+1)*xl], xoff, y[ra[i]*yl:(ra[i]+1)*yl], yoff)
	}
}
