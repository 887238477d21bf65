package sddmm

import "fmt"

// Target says which rows of an operand an edge reads: those of its source
// node, of the edge itself, or of its destination node.
type Target uint8

// The targets, in DGL's spelling u, e, v.
const (
	U Target = iota // the edge's source node
	E               // the edge
	V               // the edge's destination node
)

// String returns DGL's name of the target: "u", "e" or "v".
func (t Target) String() string {
	switch t {
	case U:
		return "u"
	case E:
		return "e"
	case V:
		return "v"
	}
	return fmt.Sprintf("Target(%d)", uint8(t))
}

// Op is the binary operation that combines the two operand rows of an edge.
type Op uint8

// The operations. Dot multiplies elementwise and sums over the last feature
// dimension; CopyLHS and CopyRHS ignore the other operand, which may be nil.
const (
	Add Op = iota
	Sub
	Mul
	Div
	Dot
	CopyLHS
	CopyRHS
)

// String returns DGL's name of the operation: "add", "sub", "mul", "div",
// "dot", "copy_lhs" or "copy_rhs".
func (o Op) String() string {
	switch o {
	case Add:
		return "add"
	case Sub:
		return "sub"
	case Mul:
		return "mul"
	case Div:
		return "div"
	case Dot:
		return "dot"
	case CopyLHS:
		return "copy_lhs"
	case CopyRHS:
		return "copy_rhs"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}
