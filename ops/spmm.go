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
	"github.com/gnngo/gnn/ops/spmm"
)

// SpMM builds the generalized sparse-dense product of DGL: for every
// destination node v, the reducer red over the in-edges e = (u -> v) of the
// message u[u] op e[e]. Messages are never stored per edge.
//
// op is CopyLHS (copy_u: e must be nil), CopyRHS (copy_e: u must be nil),
// Add, Sub, Mul or Div. u has one row per source node and e one row per edge;
// their feature dimensions broadcast by NumPy rules, so (N, H, D) node
// features combine with (E, H, 1) edge weights without expanding them. The
// result has one row per destination node and the broadcast feature shape.
//
// Sub and Div run in the kernel, without a negated or inverted copy of e.
// The result is differentiable with respect to u and e for every
// reducer; Max and Min route the gradient to the winning edge (ties go to the
// smallest edge ID).
//
// A graph without edges gives zeros, and its gradients are zeros (empty for
// the edge operand). A graph without destination nodes is an error: the
// result would be empty (see emptyResult).
func SpMM(g *graph.Graph, op Binary, red Reducer, u, e *gorgonia.Node) (*gorgonia.Node, error) {
	if g == nil {
		return nil, fmt.Errorf("ops: SpMM on a nil graph")
	}
	if g.NumDst() == 0 {
		return nil, emptyResult(fmt.Sprintf("SpMM %v", op), "destination nodes")
	}
	return spmmNode(g, op, red, u, e)
}

// spmmNode is SpMM without the check for an empty result: gradients may be
// empty when their operand is.
func spmmNode(g *graph.Graph, op Binary, red Reducer, u, e *gorgonia.Node) (*gorgonia.Node, error) {
	if red > Min {
		return nil, fmt.Errorf("ops: unknown reducer %v", red)
	}
	switch op {
	case CopyLHS:
		if e != nil {
			return nil, fmt.Errorf("ops: copy_u takes no edge operand")
		}
		shape, err := checkOperand(g, u, U, "source features")
		if err != nil {
			return nil, err
		}
		return apply(newSpMMOp(g, spmm.CopyU, red, shape, nil, bcast.Same(shape)), u)
	case CopyRHS:
		if u != nil {
			return nil, fmt.Errorf("ops: copy_e takes no node operand")
		}
		shape, err := checkOperand(g, e, E, "edge features")
		if err != nil {
			return nil, err
		}
		return apply(newSpMMOp(g, spmm.CopyE, red, nil, shape, bcast.Same(shape)), e)
	case Add, Sub, Mul, Div:
	default:
		return nil, fmt.Errorf("ops: SpMM does not support operator %v", op)
	}
	ls, rs, p, err := checkBinary(g, fmt.Sprintf("u_%v_e", op), operand{u, U, "source features"}, operand{e, E, "edge features"}, false)
	if err != nil {
		return nil, err
	}
	return apply(newSpMMOp(g, op, red, ls, rs, p), u, e)
}

// spmmOp is a fused message + reduce over the in-edges of every destination.
// It holds only static configuration: the same op may appear in many nodes.
type spmmOp struct {
	g        *graph.Graph
	op       spmm.Op
	red      spmm.Reduce
	lhs, rhs []int // feature shapes of u and e (nil when unused)
	plan     bcast.Plan
}

func newSpMMOp(g *graph.Graph, op spmm.Op, red spmm.Reduce, lhs, rhs []int, p bcast.Plan) *spmmOp {
	return &spmmOp{g: g, op: op, red: red, lhs: lhs, rhs: rhs, plan: p}
}

// inputShapes returns the full shapes of the op's inputs, in order.
func (op *spmmOp) inputShapes() []tensor.Shape {
	var s []tensor.Shape
	if op.op != spmm.CopyE {
		s = append(s, withRows(op.g.NumSrc(), op.lhs))
	}
	if op.op != spmm.CopyU {
		s = append(s, withRows(op.g.NumEdges(), op.rhs))
	}
	return s
}

func (op *spmmOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return op.inputShapes(), withRows(op.g.NumDst(), op.plan.Out)
}

func (op *spmmOp) Name() string {
	switch op.op {
	case spmm.CopyU:
		return "copy_u_" + op.red.String()
	case spmm.CopyE:
		return "copy_e_" + op.red.String()
	}
	return fmt.Sprintf("u_%v_e_%v", op.op, op.red)
}

func (op *spmmOp) Key() string { return fmt.Sprintf("g=%d,u=%v,e=%v", op.g.ID(), op.lhs, op.rhs) }

// DoInto computes the output into dst (opkit.Into).
func (op *spmmOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return spmmDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return spmmDo[float64](dst, op, vals) })
}

// DeviceDo runs the SpMM with the backend's sparse kernel, on the same graph,
// shapes and broadcasting plan as DoInto. It runs when an input is on the device
// (see package internal/ops/device).
func (op *spmmOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, out, err := device.Prepare(b, vals, withRows(op.g.NumDst(), op.plan.Out))
	if err != nil {
		return nil, err
	}
	u, e := spmmOperands(op.op, in)
	return out, b.SpMM(out, op.g, op.op, op.red, u, e, op.plan)
}

// spmmOperands splits the inputs of an SpMM of operator op into its node
// and edge operands, nil for the one a copy does not read.
func spmmOperands(op spmm.Op, in []*tensor.Dense) (u, e *tensor.Dense) {
	switch op {
	case spmm.CopyU:
		return in[0], nil
	case spmm.CopyE:
		return nil, in[0]
	}
	return in[0], in[1]
}

// operands splits the op's input values into u and e.
func operands[T num.Float](op spmm.Op, vals []gorgonia.Value) (u, e []T, err error) {
	var x []T
	if x, err = values.Data[T](vals[0]); err != nil {
		return nil, nil, err
	}
	switch op {
	case spmm.CopyU:
		return x, nil, nil
	case spmm.CopyE:
		return nil, x, nil
	}
	if e, err = values.Data[T](vals[1]); err != nil {
		return nil, nil, err
	}
	return x, e, nil
}

func spmmDo[T num.Float](dst *tensor.Dense, op *spmmOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	u, e, err := operands[T](op.op, vals)
	if err != nil {
		return nil, err
	}
	t, out := values.OverInto[T](dst, withRows(op.g.NumDst(), op.plan.Out)) // Forward overwrites out
	spmm.Forward(out, op.g, op.op, op.red, u, e, op.plan, nil)
	return t, nil
}

var (
	_ opkit.Forward = (*spmmOp)(nil)
	_ device.Spec   = (*spmmOp)(nil)
)
