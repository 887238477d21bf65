package vm

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ValueGrads pairs each parameter with the value of its gradient node (the
// nodes gorgonia.Grad returned, roots of the machine), for a
// gorgonia.Solver's Step after a run: what gorgonia.BindDualValues gives a
// tape machine, without adding the gradient into a second buffer. A
// solver may overwrite the gradients (Gorgonia's do): a gradient the
// machine does not hold alone (a constant, an input, a value shared with
// another root) is copied first into a buffer of the machine's own.
func (m *Machine) ValueGrads(params, grads gorgonia.Nodes) ([]gorgonia.ValueGrad, error) {
	if len(params) != len(grads) {
		return nil, fmt.Errorf("vm: %d parameters and %d gradients", len(params), len(grads))
	}
	out := make([]gorgonia.ValueGrad, len(params))
	for i, p := range params {
		g, err := m.grad(grads[i])
		if err != nil {
			return nil, fmt.Errorf("vm: gradient of %q: %w", p.Name(), err)
		}
		out[i] = valueGrad{p, g}
	}
	return out, nil
}

// grad returns the value of gradient node n, or a copy of it.
func (m *Machine) grad(n *gorgonia.Node) (gorgonia.Value, error) {
	i, ok := m.index[n]
	if !ok || m.vals[i] == nil {
		return nil, fmt.Errorf("node %v has no value of this machine's", n)
	}
	v := m.vals[i]
	if o := m.owner[i]; o >= 0 && m.bufs[o].t != nil && m.bufs[o].refs == 1 {
		return v, nil // a pooled buffer held for this root alone
	}
	src, ok := v.(*tensor.Dense)
	if !ok {
		return v, nil // a scalar: solvers read it, and it is the op's own
	}
	if m.grads == nil {
		m.grads = map[*gorgonia.Node]*tensor.Dense{}
	}
	dst := m.grads[n]
	if dst == nil || !dst.Shape().Eq(src.Shape()) || dst.Dtype() != src.Dtype() {
		dst = tensor.New(tensor.WithShape(src.Shape().Clone()...), tensor.Of(src.Dtype()))
		m.grads[n] = dst
	}
	if err := tensor.Copy(dst, src); err != nil {
		return nil, err
	}
	return dst, nil
}

// valueGrad is a parameter with its gradient's value.
type valueGrad struct {
	n *gorgonia.Node
	g gorgonia.Value
}

func (v valueGrad) Value() gorgonia.Value         { return v.n.Value() }
func (v valueGrad) Grad() (gorgonia.Value, error) { return v.g, nil }
func (v valueGrad) Name() string                  { return v.n.Name() }
