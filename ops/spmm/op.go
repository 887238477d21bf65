package spmm

import "strconv"

// Op is the message function of an SpMM: how the source-node row u and the
// edge row e of an edge combine into the edge's message.
type Op uint8

// Message functions, named after DGL's: copy_u is u itself (DGL copy_lhs),
// copy_e is e itself (copy_rhs), and the binary ops compute u OP e
// element-wise under a broadcast plan.
const (
	CopyU Op = iota // message u
	CopyE           // message e
	Add             // message u + e
	Sub             // message u - e
	Mul             // message u * e
	Div             // message u / e
)

var opNames = [...]string{"copy_u", "copy_e", "add", "sub", "mul", "div"}

// String returns DGL's name of the op: "copy_u", "copy_e", "add", "sub",
// "mul" or "div".
func (op Op) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return "Op(" + strconv.Itoa(int(op)) + ")"
}

// usesU reports whether the message reads the source-node operand.
func (op Op) usesU() bool { return op != CopyE }

// usesE reports whether the message reads the edge operand.
func (op Op) usesE() bool { return op != CopyU }

// binary reports whether the message combines both operands.
func (op Op) binary() bool { return op >= Add && op <= Div }

// Reduce is the reduction of an SpMM: how the messages arriving at a
// destination node combine into its output row.
type Reduce uint8

// Reducers, as DGL's. Every reducer gives 0 at a node with no in-edges.
const (
	Sum  Reduce = iota // sum of the messages
	Mean               // sum divided by max(in-degree, 1)
	Max                // element-wise maximum; see Forward for the arg rule
	Min                // element-wise minimum
)

var reduceNames = [...]string{"sum", "mean", "max", "min"}

// String returns DGL's name of the reducer: "sum", "mean", "max" or "min".
func (r Reduce) String() string {
	if int(r) < len(reduceNames) {
		return reduceNames[r]
	}
	return "Reduce(" + strconv.Itoa(int(r)) + ")"
}
