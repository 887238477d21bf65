package spmm

import (
	"strconv"

	"github.com/gnngo/gnn/ops/internal/binop"
)

// Op is the message function of an SpMM: how the source-node row u and the
// edge row e of an edge combine into the edge's message. It is the operator
// type of ops.Binary and sddmm.Op, numbered alike; SpMM takes every operator
// but Dot.
type Op = binop.Op

// Message functions, named after DGL's: copy_u is u itself (DGL copy_lhs),
// copy_e is e itself (copy_rhs), and the binary ops compute u OP e
// element-wise under a broadcast plan.
const (
	CopyU = binop.CopyLHS // message u
	CopyE = binop.CopyRHS // message e
	Add   = binop.Add     // message u + e
	Sub   = binop.Sub     // message u - e
	Mul   = binop.Mul     // message u * e
	Div   = binop.Div     // message u / e
)

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
