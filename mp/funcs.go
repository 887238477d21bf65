package mp

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

// Fields maps names to feature tensors: what user-defined functions return.
type Fields map[string]*gorgonia.Node

// MessageFunc computes messages on edges: a builtin fn.Message (fn.CopyU,
// fn.UMulE, ...), which the scheduler can fuse with a builtin reducer, or
// an EdgeFunc. Other implementations are rejected with an error.
type MessageFunc interface {
	// MessageName names the function in errors: DGL's name of a
	// builtin, "udf" for an EdgeFunc.
	MessageName() string
}

// ReduceFunc aggregates the messages of every destination node: a builtin
// fn.Reducer (fn.Sum, fn.Max, ...) or a NodeFunc. Other implementations are
// rejected with an error.
type ReduceFunc interface {
	// ReduceName names the function in errors: DGL's name of a builtin,
	// "udf" for a NodeFunc.
	ReduceName() string
}

// EdgeFunc is a user-defined message or edge function. It receives a batch
// of edges, reads the endpoint and edge fields it needs (gathered lazily,
// one row per edge), and returns fields with one row per edge of the batch.
type EdgeFunc func(e *EdgeBatch) (Fields, error)

// MessageName returns "udf".
func (EdgeFunc) MessageName() string { return "udf" }

// NodeFunc is a user-defined reduce or apply function. It receives a batch
// of nodes and returns fields with one row per node of the batch. As a
// reduce function it is called once per bucket of destination nodes and
// reads their messages with NodeBatch.Mailbox; as an apply function it is
// called once, on every node the routine updates.
type NodeFunc func(n *NodeBatch) (Fields, error)

// ReduceName returns "udf".
func (NodeFunc) ReduceName() string { return "udf" }

// builtinMessage returns m as a builtin message, with copies of the right
// operand turned into copies of the left, or ok false for an EdgeFunc.
func builtinMessage(m MessageFunc) (b fn.Message, udf EdgeFunc, err error) {
	switch m := m.(type) {
	case fn.Message:
		b = m
	case *fn.Message:
		if m == nil {
			return b, nil, fmt.Errorf("nil message function")
		}
		b = *m
	case EdgeFunc:
		if m == nil {
			return b, nil, fmt.Errorf("nil message function")
		}
		return b, m, nil
	case nil:
		return b, nil, fmt.Errorf("nil message function")
	default:
		return b, nil, fmt.Errorf("unsupported message function type %T", m)
	}
	if b.Op == ops.CopyRHS {
		b = fn.Copy(b.RHS, b.RHSField, b.Out)
	}
	return b, nil, checkMessage(b)
}

// builtinReducer returns r as a builtin reducer, or a NodeFunc.
func builtinReducer(r ReduceFunc) (b fn.Reducer, udf NodeFunc, err error) {
	switch r := r.(type) {
	case fn.Reducer:
		b = r
	case *fn.Reducer:
		if r == nil {
			return b, nil, fmt.Errorf("nil reduce function")
		}
		b = *r
	case NodeFunc:
		if r == nil {
			return b, nil, fmt.Errorf("nil reduce function")
		}
		return b, r, nil
	case nil:
		return b, nil, fmt.Errorf("nil reduce function")
	default:
		return b, nil, fmt.Errorf("unsupported reduce function type %T", r)
	}
	if b.Op > fn.ReduceProd {
		return b, nil, fmt.Errorf("unknown reduction %v", b.Op)
	}
	if b.Msg == "" || b.Out == "" {
		return b, nil, fmt.Errorf("reducer %v has an empty field name", b)
	}
	return b, nil, nil
}

// describe names a message or reduce function for an error's context.
func describe(f any) string {
	switch f := f.(type) {
	case fn.Message:
		return f.String()
	case *fn.Message:
		if f != nil {
			return f.String()
		}
	case fn.Reducer:
		return f.String()
	case *fn.Reducer:
		if f != nil {
			return f.String()
		}
	case EdgeFunc, NodeFunc:
		return "udf"
	}
	return fmt.Sprintf("%T", f)
}

// checkMessage validates a builtin message whose copies read the left
// operand.
func checkMessage(m fn.Message) error {
	switch m.Op {
	case ops.CopyLHS, ops.Add, ops.Sub, ops.Mul, ops.Div, ops.Dot:
	default:
		return fmt.Errorf("message %v: unsupported operator %v", m, m.Op)
	}
	if m.LHS > ops.V || (!m.IsCopy() && m.RHS > ops.V) {
		return fmt.Errorf("message %v: unknown operand target", m)
	}
	if m.LHSField == "" || m.Out == "" || (!m.IsCopy() && m.RHSField == "") {
		return fmt.Errorf("message %v has an empty field name", m)
	}
	return nil
}
