package sddmm

import "github.com/gnngo/gnn/internal/num"

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
func binaryRows[T num.Float](op Op, o, x []T, la []int, y []T, ra []int) {
	if len(la) == 0 {
		return
	}
	l := len(o) / len(la)
	ra = ra[:len(la)]
	for i, r := range la {
		or := o[i*l : (i+1)*l]
		xr := x[r*l : (r+1)*l]
		yr := y[ra[i]*l : (ra[i]+1)*l]
		xr, yr = xr[:len(or)], yr[:len(or)]
		switch op {
		case Add:
			for k := range or {
				or[k] = xr[k] + yr[k]
			}
		case Sub:
			for k := range or {
				or[k] = xr[k] - yr[k]
			}
		case Mul:
			for k := range or {
				or[k] = xr[k] * yr[k]
			}
		case Div:
			for k := range or {
				or[k] = xr[k] / yr[k]
			}
		}
	}
}

// binaryOff handles broadcasting through offset tables: element k of an
// output row reads xoff[k] of an x row (length xl) and yoff[k] of a y row
// (length yl).
func binaryOff[T num.Float](op Op, o, x []T, la []int, xl int, xoff []int, y []T, ra []int, yl int, yoff []int) {
	l := len(xoff)
	ra = ra[:len(la)]
	yoff = yoff[:l]
	for i, r := range la {
		or := o[i*l : (i+1)*l]
		xr := x[r*xl : (r+1)*xl]
		yr := y[ra[i]*yl : (ra[i]+1)*yl]
		xo, yo := xoff[:len(or)], yoff[:len(or)]
		switch op {
		case Add:
			for k := range or {
				or[k] = xr[xo[k]] + yr[yo[k]]
			}
		case Sub:
			for k := range or {
				or[k] = xr[xo[k]] - yr[yo[k]]
			}
		case Mul:
			for k := range or {
				or[k] = xr[xo[k]] * yr[yo[k]]
			}
		case Div:
			for k := range or {
				or[k] = xr[xo[k]] / yr[yo[k]]
			}
		}
	}
}
