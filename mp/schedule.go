package mp

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

// The scheduler maps builtin messages and reducers to kernels, as DGL's
// message_passing does:
//
//   - copy_u, copy_e, u_OP_e (OP add, sub, mul, div) and e_OP_u (OP add,
//     mul, which commute) with sum, mean, max or min run as one fused
//     ops.SpMM: no message is stored per edge.
//   - The same messages with prod run as this package's fused product op,
//     which likewise stores no message in the forward pass.
//   - Every other builtin message (v operands, dot, e_sub_u, two operands
//     at one end) is computed onto the edges by ops.SDDMM, then reduced by
//     a copy_e SpMM (or the product op).
//   - A user-defined message feeds a builtin reducer through the copy_e
//     path; a builtin message feeds a user-defined reducer through
//     ops.SDDMM and degree bucketing.

// builtinPair returns the reduction of a builtin message by a builtin
// reducer.
func (c *compute) builtinPair(m fn.Message, r fn.Reducer) (*gorgonia.Node, error) {
	if m.Out != r.Msg {
		return nil, fmt.Errorf("the reducer reads message %q but the message function writes %q", r.Msg, m.Out)
	}
	lhs, rhs, err := c.operands(m)
	if err != nil {
		return nil, err
	}
	u, e, op, fused := fusable(m, lhs, rhs)
	if !fused {
		msg, err := c.builtinEdges(m)
		if err != nil {
			return nil, err
		}
		return c.reduceEdges(r, msg)
	}
	var out *gorgonia.Node
	if r.Op == fn.ReduceProd {
		out, err = prodOf(c, op, u, e)
	} else {
		out, err = ops.SpMM(c.g, op, kernelReducer(r.Op), u, e)
	}
	if err != nil {
		return nil, err
	}
	return c.withInitial(out)
}

// fusable reports whether m reduces as one SpMM, and its operands and
// operator in SpMM's order (source operand, edge operand).
func fusable(m fn.Message, lhs, rhs *gorgonia.Node) (u, e *gorgonia.Node, op ops.Binary, ok bool) {
	switch {
	case m.IsCopy() && m.LHS == ops.U:
		return lhs, nil, ops.CopyLHS, true
	case m.IsCopy() && m.LHS == ops.E:
		return nil, lhs, ops.CopyRHS, true
	case m.IsCopy():
		return nil, nil, 0, false
	}
	switch {
	case m.LHS == ops.U && m.RHS == ops.E && m.Op != ops.Dot:
		return lhs, rhs, m.Op, true
	case m.LHS == ops.E && m.RHS == ops.U && (m.Op == ops.Add || m.Op == ops.Mul):
		return rhs, lhs, m.Op, true
	}
	return nil, nil, 0, false
}

// prodOf builds the fused product of a message SpMM could fuse.
func prodOf(c *compute, op ops.Binary, u, e *gorgonia.Node) (*gorgonia.Node, error) {
	var err error
	switch op {
	case ops.CopyLHS:
		return reduceProd(c.g, prodCopyU, u, nil)
	case ops.CopyRHS:
		return reduceProd(c.g, prodCopyE, nil, e)
	case ops.Sub:
		if e, err = gorgonia.Neg(e); err != nil {
			return nil, err
		}
		fallthrough
	case ops.Add:
		return reduceProd(c.g, prodAdd, u, e)
	case ops.Div:
		if e, err = gorgonia.Inverse(e); err != nil {
			return nil, err
		}
	}
	return reduceProd(c.g, prodMul, u, e)
}

// operands returns the fields a builtin message reads; rhs is nil for a
// copy.
func (c *compute) operands(m fn.Message) (lhs, rhs *gorgonia.Node, err error) {
	if lhs, err = c.operand(m.LHS, m.LHSField); err != nil {
		return nil, nil, err
	}
	if !m.IsCopy() {
		if rhs, err = c.operand(m.RHS, m.RHSField); err != nil {
			return nil, nil, err
		}
	}
	return lhs, rhs, nil
}

// builtinEdges computes a builtin message onto the edges of the compute
// graph. A dot product keeps its reduced dimension with size 1, as in DGL.
func (c *compute) builtinEdges(m fn.Message) (*gorgonia.Node, error) {
	if m.IsCopy() {
		return c.perEdge(m.LHS, m.LHSField)
	}
	lhs, rhs, err := c.operands(m)
	if err != nil {
		return nil, err
	}
	return ops.SDDMM(c.g, m.Op, lhs, m.LHS, rhs, m.RHS)
}

// reduceEdges reduces messages stored on the edges by a builtin reducer.
func (c *compute) reduceEdges(r fn.Reducer, msg *gorgonia.Node) (*gorgonia.Node, error) {
	var out *gorgonia.Node
	var err error
	if r.Op == fn.ReduceProd {
		out, err = reduceProd(c.g, prodCopyE, nil, msg)
	} else {
		out, err = ops.SpMM(c.g, ops.CopyRHS, kernelReducer(r.Op), nil, msg)
	}
	if err != nil {
		return nil, err
	}
	return c.withInitial(out)
}

// kernelReducer returns the ops reducer of a builtin reduction other than
// prod.
func kernelReducer(r fn.Reduction) ops.Reducer {
	switch r {
	case fn.ReduceMean:
		return ops.Mean
	case fn.ReduceMax:
		return ops.Max
	case fn.ReduceMin:
		return ops.Min
	}
	return ops.Sum
}

// messageShape returns the feature shape of a builtin message's result, for
// routines on graphs without edges.
func (c *compute) messageShape(m fn.Message) ([]int, error) {
	lhs, rhs, err := c.operands(m)
	if err != nil {
		return nil, err
	}
	if m.IsCopy() {
		return feature(lhs), nil
	}
	return broadcastShape(feature(lhs), feature(rhs), m.Op == ops.Dot)
}

// broadcastShape returns the feature shape of lhs OP rhs.
func broadcastShape(lhs, rhs []int, dot bool) ([]int, error) {
	p, err := bcast.New(lhs, rhs, dot)
	if err != nil {
		return nil, err
	}
	if dot {
		return append(p.Out, 1), nil
	}
	return p.Out, nil
}

// full returns a new input node of the given shape and dtype filled with v,
// in the expression graph of like.
func full(like *gorgonia.Node, shape []int, v float64) *gorgonia.Node {
	dt := like.Dtype()
	t := tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
	switch d := t.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = float32(v)
		}
	case []float64:
		for i := range d {
			d[i] = v
		}
	}
	return gorgonia.NewTensor(like.Graph(), dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithValue(t),
		gorgonia.WithName(fmt.Sprintf("mp.initial.%d", newIndexID())))
}
