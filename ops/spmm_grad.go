package ops

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/spmm"
)

// Grad builds the gradients of an SpMM from forward ops (DGL's GSpMM
// backward): the transposed SpMM on the reversed graph for the node operand,
// an SDDMM for the edge operand, then a sum over broadcast dimensions. Mean
// scales the incoming gradient by 1/max(deg, 1) first; Max and Min use
// arg-gradient ops that recompute the winning edges.
func (op *spmmOp) Grad(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.red == spmm.Max || op.red == spmm.Min {
		out := make(gorgonia.Nodes, len(inputs))
		for i := range inputs {
			n, err := apply(&spmmArgGradOp{fwd: op, wrt: i}, append(append(gorgonia.Nodes{}, inputs...), grad)...)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	if op.red == spmm.Mean {
		var err error
		if grad, err = ScaleByDegree(op.g, grad, InDegree, -1); err != nil {
			return nil, err
		}
	}
	g, rev := op.g, op.g.Reverse()
	switch op.op {
	case spmm.CopyU:
		d, err := spmmNode(rev, CopyLHS, Sum, grad, nil)
		return gorgonia.Nodes{d}, err
	case spmm.CopyE:
		d, err := sddmmNode(g, CopyLHS, grad, V, nil, V)
		return gorgonia.Nodes{d}, err
	}
	u, e := inputs[0], inputs[1]
	var du, de *gorgonia.Node
	var err error
	switch op.op {
	case spmm.Add:
		if du, err = spmmNode(rev, CopyLHS, Sum, grad, nil); err != nil {
			return nil, err
		}
		if de, err = sddmmNode(g, CopyLHS, grad, V, nil, V); err != nil {
			return nil, err
		}
	case spmm.Sub:
		// d(u - e)/de = -1: negate whichever is smaller, the node gradient
		// or the edge gradient summed to e's shape.
		if du, err = spmmNode(rev, CopyLHS, Sum, grad, nil); err != nil {
			return nil, err
		}
		negFirst := grad.Shape().TotalSize() <= e.Shape().TotalSize()
		if negFirst {
			if grad, err = gorgonia.Neg(grad); err != nil {
				return nil, err
			}
		}
		if de, err = sddmmNode(g, CopyLHS, grad, V, nil, V); err != nil {
			return nil, err
		}
		if de, err = sumTo(de, op.rhs); err != nil {
			return nil, err
		}
		if !negFirst && !empty(de) { // Gorgonia's Neg panics on empty tensors
			if de, err = gorgonia.Neg(de); err != nil {
				return nil, err
			}
		}
	case spmm.Mul:
		if du, err = spmmNode(rev, Mul, Sum, grad, e); err != nil {
			return nil, err
		}
		if de, err = edgeWeightGrad(op, u, grad); err != nil {
			return nil, err
		}
	case spmm.Div:
		// d(u / e)/du = 1/e; d(u / e)/de = -u/e², and e is constant over the
		// dimensions it broadcasts along, so 1/e² comes out of their sum.
		if du, err = spmmNode(rev, Div, Sum, grad, e); err != nil {
			return nil, err
		}
		if de, err = edgeWeightGrad(op, u, grad); err != nil {
			return nil, err
		}
		if de, err = sumTo(de, op.rhs); err != nil {
			return nil, err
		}
		if empty(de) { // no edges: nothing to divide, and Gorgonia panics on empty tensors
			break
		}
		if de, err = negOverSquare(de, e); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("ops: %v: no gradient for kernel operator %v", op, op.op)
	}
	if du, err = sumTo(du, op.lhs); err != nil {
		return nil, err
	}
	if de, err = sumTo(de, op.rhs); err != nil {
		return nil, err
	}
	return gorgonia.Nodes{du, de}, nil
}

// edgeWeightGrad returns d(u_mul_e)/de for the gradient grad on destination
// nodes (for u_div_e, the sum that -1/e² multiplies). When e broadcasts only over the last feature dimension of u (a
// weight per edge, or per edge and head), the gradient is a dot product per
// edge and never materialises an E x F tensor; otherwise it is the per-edge
// product u[src] * grad[dst], reduced later to e's shape.
func edgeWeightGrad(op *spmmOp, u, grad *gorgonia.Node) (*gorgonia.Node, error) {
	if !dotBroadcast(op.lhs, op.rhs, op.plan.Out) {
		return sddmmNode(op.g, Mul, u, U, grad, V)
	}
	d, err := sddmmNode(op.g, Dot, u, U, grad, V)
	if err != nil {
		return nil, err
	}
	return reshape(d, withRows(op.g.NumEdges(), op.rhs))
}

// dotBroadcast reports whether rhs equals out with its last dimension
// collapsed to 1 (or is a single scalar per row), while lhs equals out.
func dotBroadcast(lhs, rhs, out []int) bool {
	if len(out) == 0 || !slices.Equal(lhs, out) {
		return false
	}
	if bcast.Prod(rhs) == 1 && len(out) == 1 {
		return true
	}
	if len(rhs) != len(out) || rhs[len(rhs)-1] != 1 {
		return false
	}
	return slices.Equal(rhs[:len(rhs)-1], out[:len(out)-1])
}

// spmmArgGradOp is the gradient of a Max or Min SpMM with respect to input
// wrt. Its inputs are the forward's inputs followed by the output gradient;
// it recomputes the winning edges (a forward pass) and routes the gradient
// through them.
type spmmArgGradOp struct {
	fwd *spmmOp
	wrt int
}

func (op *spmmArgGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in := op.fwd.inputShapes()
	return append(in, withRows(op.fwd.g.NumDst(), op.fwd.plan.Out)), in[op.wrt]
}

func (op *spmmArgGradOp) Name() string { return fmt.Sprintf("d%v/d%d", op.fwd.Name(), op.wrt) }

func (op *spmmArgGradOp) Key() string { return op.fwd.Key() }

// DeviceDo recomputes the winning edges of the Max or Min forward on the
// device and routes the output gradient through them, as DoInto.
func (op *spmmArgGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	_, shape := op.Shapes()
	in, d, err := device.Prepare(b, vals, shape)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	u, e := spmmOperands(f.op, in)
	var du, de *tensor.Dense
	if op.wrt == 0 && f.op != spmm.CopyE {
		du = d
	} else {
		de = d
	}
	return d, b.SpMMArgBackward(du, de, f.g, f.op, f.red, u, e, f.plan, in[len(in)-1])
}

// DoInto computes the output into dst (opkit.Into).
func (op *spmmArgGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return spmmArgGradDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return spmmArgGradDo[float64](dst, op, vals) })
}

func spmmArgGradDo[T num.Float](dst *tensor.Dense, op *spmmArgGradOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	f := op.fwd
	u, e, err := operands[T](f.op, vals[:len(vals)-1])
	if err != nil {
		return nil, err
	}
	dOut, err := values.Data[T](vals[len(vals)-1])
	if err != nil {
		return nil, err
	}
	n := f.g.NumDst() * f.plan.OutLen
	scratch := make([]T, n)
	arg := make([]int64, n)
	spmm.Forward(scratch, f.g, f.op, f.red, u, e, f.plan, arg)
	_, shape := op.Shapes()
	t, d := values.AllocInto[T](dst, shape)
	var du, de []T
	// For copy_e the single input is the edge operand.
	if op.wrt == 0 && f.op != spmm.CopyE {
		du = d
	} else {
		de = d
	}
	spmm.BackwardArg(du, de, f.g, f.op, u, e, f.plan, arg, dOut)
	return t, nil
}

var (
	_ opkit.Spec  = (*spmmArgGradOp)(nil)
	_ device.Spec = (*spmmArgGradOp)(nil)
)
