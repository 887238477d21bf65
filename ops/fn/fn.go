package fn

import (
	"fmt"

	"github.com/gnngo/gnn/internal/enum"
	"github.com/gnngo/gnn/ops"
)

// Message is a builtin message function: for every edge it computes
// LHSField of operand LHS, combined by Op with RHSField of operand RHS, and
// stores the result as the message field Out. A copy (Op ops.CopyLHS) reads
// only the left operand. Build messages with the functions of this package
// rather than by hand.
type Message struct {
	Op       ops.Binary // ops.CopyLHS, ops.Add, ops.Sub, ops.Mul, ops.Div or ops.Dot
	LHS      ops.Target // where the left operand lives: ops.U, ops.V or ops.E
	LHSField string
	RHS      ops.Target // where the right operand lives; unused by a copy
	RHSField string     // unused by a copy
	Out      string     // name of the message
}

// Copy returns the message that copies field of the operand at t (ops.U,
// ops.V or ops.E) as out: DGL's copy_u, copy_v or copy_e.
func Copy(t ops.Target, field, out string) Message {
	return Message{Op: ops.CopyLHS, LHS: t, LHSField: field, RHS: t, Out: out}
}

// Binary returns the message lhsField of operand lt, combined by op with
// rhsField of operand rt, stored as out: DGL's {lt}_{op}_{rt}.
func Binary(op ops.Binary, lt ops.Target, lhsField string, rt ops.Target, rhsField, out string) Message {
	return Message{Op: op, LHS: lt, LHSField: lhsField, RHS: rt, RHSField: rhsField, Out: out}
}

// CopyU is DGL's copy_u: the message out is field of the source node.
func CopyU(field, out string) Message { return Copy(ops.U, field, out) }

// CopyV is DGL's copy_v: the message out is field of the destination node.
func CopyV(field, out string) Message { return Copy(ops.V, field, out) }

// CopyE is DGL's copy_e: the message out is field of the edge.
func CopyE(field, out string) Message { return Copy(ops.E, field, out) }

// IsCopy reports whether m copies one operand.
func (m Message) IsCopy() bool { return m.Op == ops.CopyLHS || m.Op == ops.CopyRHS }

// MessageName returns DGL's name of the message, such as "copy_u" or
// "u_mul_e".
func (m Message) MessageName() string {
	switch m.Op {
	case ops.CopyLHS:
		return "copy_" + m.LHS.String()
	case ops.CopyRHS:
		return "copy_" + m.RHS.String()
	}
	return fmt.Sprintf("%v_%v_%v", m.LHS, m.Op, m.RHS)
}

// String describes the message with its fields, such as
// "u_mul_e(h, w -> m)".
func (m Message) String() string {
	switch m.Op {
	case ops.CopyLHS:
		return fmt.Sprintf("%s(%s -> %s)", m.MessageName(), m.LHSField, m.Out)
	case ops.CopyRHS:
		return fmt.Sprintf("%s(%s -> %s)", m.MessageName(), m.RHSField, m.Out)
	}
	return fmt.Sprintf("%s(%s, %s -> %s)", m.MessageName(), m.LHSField, m.RHSField, m.Out)
}

// Reduction is how a reducer aggregates the messages of a node.
type Reduction uint8

// Reductions.
const (
	ReduceSum  Reduction = iota // sum of the messages
	ReduceMean                  // sum divided by the in-degree
	ReduceMax                   // elementwise maximum
	ReduceMin                   // elementwise minimum
	ReduceProd                  // elementwise product
)

var reductionNames = [...]string{"sum", "mean", "max", "min", "prod"}

// String returns DGL's spelling: "sum", "mean", "max", "min" or "prod".
func (r Reduction) String() string { return enum.Name(r, "Reduction", reductionNames[:]...) }

// Reducer is a builtin reduce function: it aggregates the message field Msg
// over the incoming edges of every destination node by Op and stores the
// result as the node field Out.
type Reducer struct {
	Op  Reduction
	Msg string // the message field read
	Out string // the node field written
}

// Sum returns the reducer that sums message msg into node field out.
func Sum(msg, out string) Reducer { return Reducer{Op: ReduceSum, Msg: msg, Out: out} }

// Mean returns the reducer that averages message msg into node field out.
func Mean(msg, out string) Reducer { return Reducer{Op: ReduceMean, Msg: msg, Out: out} }

// Max returns the reducer that takes the elementwise maximum of message msg
// into node field out. Its gradient goes to the winning edge; ties go to the
// smallest edge ID.
func Max(msg, out string) Reducer { return Reducer{Op: ReduceMax, Msg: msg, Out: out} }

// Min returns the reducer that takes the elementwise minimum of message msg
// into node field out. Its gradient goes to the winning edge; ties go to the
// smallest edge ID.
func Min(msg, out string) Reducer { return Reducer{Op: ReduceMin, Msg: msg, Out: out} }

// Prod returns the reducer that multiplies the messages msg elementwise into
// node field out, in increasing edge-ID order. DGL has no such builtin.
func Prod(msg, out string) Reducer { return Reducer{Op: ReduceProd, Msg: msg, Out: out} }

// ReduceName returns the reducer's name, such as "sum".
func (r Reducer) ReduceName() string { return r.Op.String() }

// String describes the reducer with its fields, such as "sum(m -> h)".
func (r Reducer) String() string { return fmt.Sprintf("%v(%s -> %s)", r.Op, r.Msg, r.Out) }
