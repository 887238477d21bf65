package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/ops/sddmm"
)

// Target says where the rows of an operand live: on source nodes (U), on
// destination nodes (V) or on edges (E).
type Target = sddmm.Target

// The targets of an operand.
const (
	U = sddmm.U // source nodes
	V = sddmm.V // destination nodes
	E = sddmm.E // edges
)

// targetName names a target in error messages.
func targetName(t Target) string {
	switch t {
	case U:
		return "source nodes"
	case V:
		return "destination nodes"
	default:
		return "edges"
	}
}

// emptyResult is the error of an op whose result would have no rows because
// the graph has no elements of the kind named by what ("edges", "destination
// nodes"). Ops read and write empty tensors, and an op whose result is not
// empty accepts empty operands (an SpMM over a graph without edges gives
// zeros), but an empty result is refused: Gorgonia v0.9.18 panics inside
// its TapeMachine on empty tensors in its own ops (elementwise ops, Sum's
// gradient, matrix products).
func emptyResult(op, what string) error {
	return fmt.Errorf("ops: %s on a graph with no %s: the result would be empty, which Gorgonia cannot compute with", op, what)
}

// checkOperand validates that x is a float tensor with one row per element of
// target t on g, and returns its feature shape (the shape without the leading
// row dimension). what names the operand in the error.
func checkOperand(g *graph.Graph, x *gorgonia.Node, t Target, what string) ([]int, error) {
	if x == nil {
		return nil, fmt.Errorf("ops: %s is nil", what)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("ops: %s %q has dtype %v; want float32 or float64", what, x.Name(), dt)
	}
	s := x.Shape()
	if len(s) == 0 || x.IsScalar() {
		return nil, fmt.Errorf("ops: %s %q is a scalar; want one row per %s", what, x.Name(), targetName(t)[:len(targetName(t))-1])
	}
	if want := t.Rows(g); s[0] != want {
		return nil, fmt.Errorf("ops: %s %q has %d rows but the graph has %d %s", what, x.Name(), s[0], want, targetName(t))
	}
	return append([]int{}, s[1:]...), nil
}

// operand is one operand of a binary op: its node, where its rows live,
// and its name in errors.
type operand struct {
	x    *gorgonia.Node
	t    Target
	what string
}

// checkBinary validates the two operands of the binary op name, each as
// checkOperand does and both of one dtype, and plans their broadcast (a
// dot product's when dot): it returns their feature shapes and the plan.
func checkBinary(g *graph.Graph, name string, l, r operand, dot bool) (ls, rs []int, p bcast.Plan, err error) {
	if ls, err = checkOperand(g, l.x, l.t, l.what); err != nil {
		return nil, nil, p, err
	}
	if rs, err = checkOperand(g, r.x, r.t, r.what); err != nil {
		return nil, nil, p, err
	}
	if err = sameDtype(l.x, r.x); err != nil {
		return nil, nil, p, err
	}
	if p, err = bcast.New(ls, rs, dot); err != nil {
		return nil, nil, p, fmt.Errorf("ops: %s: %v", name, err)
	}
	return ls, rs, p, nil
}

// sameDtype reports an error when two operands differ in dtype.
func sameDtype(a, b *gorgonia.Node) error {
	if a.Dtype() != b.Dtype() {
		return fmt.Errorf("ops: operands %q (%v) and %q (%v) differ in dtype", a.Name(), a.Dtype(), b.Name(), b.Dtype())
	}
	return nil
}

// withRows returns the shape (n, feat...).
func withRows(n int, feat []int) tensor.Shape {
	return append(tensor.Shape{n}, feat...)
}
