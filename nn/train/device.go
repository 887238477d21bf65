package train

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/device"
)

// onDevice returns the registered device backend when a value of eg lives
// on the device (features placed with package gpu), else nil: Fit then
// trains on the device.
func onDevice(eg *gorgonia.ExprGraph) device.Backend {
	b := device.Current()
	if b == nil {
		return nil
	}
	for _, n := range eg.AllNodes() {
		if v := n.Value(); v != nil && device.On(v) {
			return b
		}
	}
	return nil
}

// deviceRun is what Fit does differently on the device: its machines give
// their outputs the device engine (Gorgonia's gradient sums run there),
// each run starts by recycling the previous run's device values, and the
// gradients, read from the gradient nodes, are copied to the host for the
// solver (dual values would add them on the host).
type deviceRun struct {
	b     device.Backend
	grads gorgonia.Nodes // one per parameter, in parameter order
}

// bind prepares a machine to run device values.
func (d *deviceRun) bind(vm gorgonia.VM) error {
	return device.Bind(vm, device.Engine{B: d.b})
}

// start begins a run: the previous run's device values are dead.
func (d *deviceRun) start() error { return d.b.Recycle() }

// hostGrad is a parameter with its gradient on the host, for a solver.
type hostGrad struct {
	n *gorgonia.Node
	g gorgonia.Value
}

func (h hostGrad) Value() gorgonia.Value         { return h.n.Value() }
func (h hostGrad) Grad() (gorgonia.Value, error) { return h.g, nil }
func (h hostGrad) Name() string                  { return h.n.Name() }

// valueGrads returns params (starting at parameter index off) with their
// gradients copied to the host.
func (d *deviceRun) valueGrads(params gorgonia.Nodes, off int) ([]gorgonia.ValueGrad, error) {
	out := make([]gorgonia.ValueGrad, len(params))
	for i, p := range params {
		g := d.grads[off+i].Value()
		if g == nil {
			return nil, fmt.Errorf("parameter %q has no gradient", p.Name())
		}
		if t, ok := g.(*tensor.Dense); ok && device.On(t) {
			h, err := d.b.Download(t)
			if err != nil {
				return nil, fmt.Errorf("gradient of %q: %w", p.Name(), err)
			}
			g = h
		}
		out[i] = hostGrad{p, g}
	}
	return out, nil
}

// hostLogits returns logits on the host, copying them from the device.
func hostLogits(b device.Backend, logits gorgonia.Value) (gorgonia.Value, error) {
	if t, ok := logits.(*tensor.Dense); ok && b != nil && device.On(t) {
		return b.Download(t)
	}
	return logits, nil
}
