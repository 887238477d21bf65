package binop

import "github.com/gnngo/gnn/internal/num"

// Gather writes x[xo[k]] OP y[yo[k]] into o[k] for every k < len(o): an
// elementwise operator (Add, Sub, Mul or Div; any other leaves o as it is)
// whose operands are read through offset tables, as a broadcast reads
// them. It is the one kernel of that case for SDDMM's edge rows and SpMM's
// messages. The switch sits outside the loops, so that each loop body is
// one arithmetic instruction.
func Gather[T num.Float](op Op, o, x []T, xo []int, y []T, yo []int) {
	xo, yo = xo[:len(o)], yo[:len(o)]
	switch op {
	case Add:
		for k := range o {
			o[k] = x[xo[k]] + y[yo[k]]
		}
	case Sub:
		for k := range o {
			o[k] = x[xo[k]] - y[yo[k]]
		}
	case Mul:
		for k := range o {
			o[k] = x[xo[k]] * y[yo[k]]
		}
	case Div:
		for k := range o {
			o[k] = x[xo[k]] / y[yo[k]]
		}
	}
}
