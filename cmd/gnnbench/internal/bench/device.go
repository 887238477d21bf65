package bench

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/internal/device"
)

// deviceStep opens the device of s, places the task's features (the
// nodes named "features", dense or the values of sparse ones) on it and
// returns the epoch of a Trainer that runs there, and a function closing
// both.
func deviceStep(s *Spec, t *Task) (func() (float64, error), func(), error) {
	var dev *gpu.Device
	var err error
	if s.Device == "gpu" {
		dev, err = gpu.Open(0)
	} else {
		dev, err = gpu.OpenEmulator()
	}
	if err != nil {
		return nil, nil, err
	}
	placed := 0
	for _, n := range t.Loss.Graph().AllNodes() {
		if n.Name() == "features" && n.Value() != nil {
			if err := dev.PlaceNode(n); err != nil {
				dev.Close()
				return nil, nil, err
			}
			placed++
		}
	}
	if placed == 0 {
		dev.Close()
		return nil, nil, fmt.Errorf("bench: no features node to place on the device")
	}
	// The parameters too: Adam steps on the device, only the loss crosses.
	for _, g := range t.Groups {
		for _, p := range g.Params {
			if err := dev.PlaceNode(p); err != nil {
				dev.Close()
				return nil, nil, err
			}
		}
	}
	tr, err := NewTrainer(t)
	if err != nil {
		dev.Close()
		return nil, nil, err
	}
	return tr.Epoch, func() { tr.Close(); dev.Close() }, nil
}

// deviceTrainer is what a Trainer does differently on the device, as
// nn/train.Fit: gradients read from the gradient nodes and copied to the
// host for the solver.
type deviceTrainer struct {
	b     device.Backend
	grads gorgonia.Nodes
	adam  []*device.Adam // per group, when the parameters are on the device
}

// adamStep steps group gi's device optimiser.
func (d *deviceTrainer) adamStep(gi int, params gorgonia.Nodes, off int) error {
	grads := make([]gorgonia.Value, len(params))
	for i := range params {
		grads[i] = d.grads[off+i].Value()
	}
	return d.adam[gi].Step(grads)
}

// hostGrad is a parameter with its gradient on the host.
type hostGrad struct {
	n *gorgonia.Node
	g gorgonia.Value
}

func (h hostGrad) Value() gorgonia.Value         { return h.n.Value() }
func (h hostGrad) Grad() (gorgonia.Value, error) { return h.g, nil }

func (d *deviceTrainer) valueGrads(params gorgonia.Nodes, off int) ([]gorgonia.ValueGrad, error) {
	out := make([]gorgonia.ValueGrad, len(params))
	for i, p := range params {
		g := d.grads[off+i].Value()
		if t, ok := g.(*tensor.Dense); ok && device.On(t) {
			h, err := d.b.Download(t)
			if err != nil {
				return nil, err
			}
			g = h
		}
		out[i] = hostGrad{p, g}
	}
	return out, nil
}
