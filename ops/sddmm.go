package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/sddmm"
)

// SDDMM builds DGL's generalized sampled dense-dense product: one row per
// edge e = (u -> v), lhs[x(e)] op rhs[y(e)], where lt and rt say whether each
// operand is read on the source node (U), the destination node (V) or the edge
// itself (E).
//
// op is Add, Sub, Mul, Div, Dot (the sum over the last feature dimension of
// the product: that dimension is kept with size 1, as in DGL, so (N, H, D)
// operands give (E, H, 1)), or CopyLHS / CopyRHS, which
// copy one operand onto the edges (the other must be nil; its target is
// ignored). Feature dimensions broadcast by NumPy rules.
//
// SDDMM on a graph without edges is an error: the result would be empty
// (see emptyResult).
func SDDMM(g *graph.Graph, op Binary, lhs *gorgonia.Node, lt Target, rhs *gorgonia.Node, rt Target) (*gorgonia.Node, error) {
	if g == nil {
		return nil, fmt.Errorf("ops: SDDMM on a nil graph")
	}
	if g.NumEdges() == 0 {
		return nil, emptyResult(fmt.Sprintf("SDDMM %v", op), "edges")
	}
	return sddmmNode(g, op, lhs, lt, rhs, rt)
}

// sddmmNode is SDDMM without the check for an empty result: the gradient of
// the edge operand of an SpMM over a graph without edges is empty.
func sddmmNode(g *graph.Graph, op Binary, lhs *gorgonia.Node, lt Target, rhs *gorgonia.Node, rt Target) (*gorgonia.Node, error) {
	if lt > V || rt > V {
		return nil, fmt.Errorf("ops: SDDMM: unknown target (%d, %d)", lt, rt)
	}
	switch op {
	case CopyRHS:
		if lhs != nil {
			return nil, fmt.Errorf("ops: copy of the right operand takes no left operand")
		}
		return sddmmNode(g, CopyLHS, rhs, rt, nil, rt)
	case CopyLHS:
		if rhs != nil {
			return nil, fmt.Errorf("ops: copy of the left operand takes no right operand")
		}
		shape, err := checkOperand(g, lhs, lt, "left operand")
		if err != nil {
			return nil, err
		}
		return apply(&sddmmOp{g: g, op: sddmm.CopyLHS, lt: lt, rt: lt, lhs: shape, plan: bcast.Same(shape)}, lhs)
	case Add, Sub, Mul, Div, Dot:
	default:
		return nil, fmt.Errorf("ops: SDDMM does not support operator %v", op)
	}
	ls, rs, p, err := checkBinary(g, fmt.Sprintf("%v_%v_%v", lt, op, rt), operand{lhs, lt, "left operand"}, operand{rhs, rt, "right operand"}, op == Dot)
	if err != nil {
		return nil, err
	}
	return apply(&sddmmOp{g: g, op: op, lt: lt, rt: rt, lhs: ls, rhs: rs, plan: p}, lhs, rhs)
}

// outShape returns the feature shape of the result: the broadcast shape, with
// the reduced dimension of a dot product kept as 1.
func (op *sddmmOp) outShape() []int {
	if op.op == sddmm.Dot {
		return append(append([]int{}, op.plan.Out...), 1)
	}
	return op.plan.Out
}

// sddmmOp computes one value row per edge from two operands.
type sddmmOp struct {
	g        *graph.Graph
	op       sddmm.Op
	lt, rt   Target
	lhs, rhs []int
	plan     bcast.Plan
}

func (op *sddmmOp) inputShapes() []tensor.Shape {
	s := []tensor.Shape{withRows(op.lt.Rows(op.g), op.lhs)}
	if op.op != sddmm.CopyLHS {
		s = append(s, withRows(op.rt.Rows(op.g), op.rhs))
	}
	return s
}

func (op *sddmmOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return op.inputShapes(), withRows(op.g.NumEdges(), op.outShape())
}

func (op *sddmmOp) Name() string {
	if op.op == sddmm.CopyLHS {
		return "copy_" + op.lt.String()
	}
	return fmt.Sprintf("%v_%v_%v", op.lt, op.op, op.rt)
}

func (op *sddmmOp) Key() string { return fmt.Sprintf("g=%d,l=%v,r=%v", op.g.ID(), op.lhs, op.rhs) }

// DoInto computes the output into dst (opkit.Into).
func (op *sddmmOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return sddmmDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return sddmmDo[float64](dst, op, vals) })
}

// DeviceDo runs the SDDMM with the backend's sparse kernel, on the same graph,
// shapes and broadcasting plan as DoInto. It runs when an input is on the device
// (see package internal/ops/device).
func (op *sddmmOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, out, err := device.Prepare(b, vals, withRows(op.g.NumEdges(), op.outShape()))
	if err != nil {
		return nil, err
	}
	var rhs *tensor.Dense
	if len(in) > 1 {
		rhs = in[1]
	}
	return out, b.SDDMM(out, op.g, op.op, in[0], op.lt, rhs, op.rt, op.plan)
}

func sddmmDo[T num.Float](dst *tensor.Dense, op *sddmmOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	lhs, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	var rhs []T
	if len(vals) > 1 {
		if rhs, err = values.Data[T](vals[1]); err != nil {
			return nil, err
		}
	}
	t, out := values.AllocInto[T](dst, withRows(op.g.NumEdges(), op.outShape()))
	sddmm.Forward(out, op.g, op.op, lhs, op.lt, rhs, op.rt, op.plan)
	return t, nil
}

// Grad builds the gradients of an SDDMM from forward ops (DGL's GSDDMM
// backward): edge gradients are summed onto the operand's rows by a copy_e
// SpMM, products become u_mul_e SpMMs on the graph or its reverse, and
// broadcast dimensions are summed away.
func (op *sddmmOp) Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	switch op.op {
	case sddmm.CopyLHS:
		d, err := scatter(op.g, op.lt, grad)
		return gorgonia.Nodes{d}, err
	case sddmm.Add, sddmm.Sub:
		dl, err := scatter(op.g, op.lt, grad)
		if err != nil {
			return nil, err
		}
		dr, err := scatter(op.g, op.rt, grad)
		if err != nil {
			return nil, err
		}
		if dl, err = sumTo(dl, op.lhs); err != nil {
			return nil, err
		}
		if dr, err = sumTo(dr, op.rhs); err != nil {
			return nil, err
		}
		if op.op == sddmm.Sub {
			if dr, err = gorgonia.Neg(dr); err != nil {
				return nil, err
			}
		}
		return gorgonia.Nodes{dl, dr}, nil
	case sddmm.Div:
		// d(l / r)/dl = 1/r; d(l / r)/dr = -l/r², and r is constant over the
		// edges and dimensions its rows are summed from, so 1/r² comes out.
		dl, err := quotientGrad(op.g, grad, inputs[1], op.rt, op.lt, op.lhs)
		if err != nil {
			return nil, err
		}
		dr, err := productGrad(op.g, grad, inputs[0], op.lt, op.rt, op.rhs)
		if err != nil {
			return nil, err
		}
		if dr, err = negOverSquare(dr, inputs[1]); err != nil {
			return nil, err
		}
		return gorgonia.Nodes{dl, dr}, nil
	}
	// A product, or a dot product: d/dx sum_k x_k y_k = y, and the
	// gradient's size-1 last dimension broadcasts over k.
	dl, err := productGrad(op.g, grad, inputs[1], op.rt, op.lt, op.lhs)
	if err != nil {
		return nil, err
	}
	dr, err := productGrad(op.g, grad, inputs[0], op.lt, op.rt, op.rhs)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dl, dr}, nil
}

var (
	_ opkit.Forward = (*sddmmOp)(nil)
	_ device.Spec   = (*sddmmOp)(nil)
)
