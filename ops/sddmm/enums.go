package sddmm

import (
	"github.com/gnngo/gnn/internal/enum"
	"github.com/gnngo/gnn/ops/internal/binop"
)

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
	return enum.Name(t, "Target", "u", "e", "v")
}

// Op is the binary operation that combines the two operand rows of an edge:
// the operator type of ops.Binary and spmm.Op, numbered alike.
type Op = binop.Op

// The operations. Dot multiplies elementwise and sums over the last feature
// dimension; CopyLHS and CopyRHS ignore the other operand, which may be nil.
const (
	Add     = binop.Add
	Sub     = binop.Sub
	Mul     = binop.Mul
	Div     = binop.Div
	Dot     = binop.Dot
	CopyLHS = binop.CopyLHS
	CopyRHS = binop.CopyRHS
)
