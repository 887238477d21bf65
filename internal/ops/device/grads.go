package device

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Placed reports whether the parameters live on the device: all of them
// (true) or none (false). A mix is an error, as a training step either
// steps its optimiser on the device or on the host.
func Placed(params gorgonia.Nodes) (bool, error) {
	on := 0
	for _, p := range params {
		if On(p.Value()) {
			on++
		}
	}
	switch on {
	case 0:
		return false, nil
	case len(params):
		return true, nil
	}
	return false, fmt.Errorf("%d of %d parameters are on the device: place all of them or none", on, len(params))
}

// HostGrads pairs each of params with its gradient, the value of the
// gradient node of the same index in grads, copied to the host when it is
// on the device: what a Gorgonia solver steps host parameters with. A
// device run reads the gradient nodes because the dual values of
// BindDualValues would add gradients on the host.
func HostGrads(b Backend, params, grads gorgonia.Nodes) ([]gorgonia.ValueGrad, error) {
	if len(grads) != len(params) {
		return nil, fmt.Errorf("device: %d gradients for %d parameters", len(grads), len(params))
	}
	out := make([]gorgonia.ValueGrad, len(params))
	for i, p := range params {
		g := grads[i].Value()
		if g == nil {
			return nil, fmt.Errorf("parameter %q has no gradient", p.Name())
		}
		if t, ok := g.(*tensor.Dense); ok && On(t) {
			h, err := b.Download(t)
			if err != nil {
				return nil, fmt.Errorf("gradient of %q: %w", p.Name(), err)
			}
			g = h
		}
		out[i] = hostGrad{p, g}
	}
	return out, nil
}

// hostGrad is a parameter with its gradient on the host, for a solver.
type hostGrad struct {
	n *gorgonia.Node
	g gorgonia.Value
}

func (h hostGrad) Value() gorgonia.Value         { return h.n.Value() }
func (h hostGrad) Grad() (gorgonia.Value, error) { return h.g, nil }
func (h hostGrad) Name() string                  { return h.n.Name() }
