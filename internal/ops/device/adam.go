package device

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Adam is Gorgonia's AdamSolver (NewAdamSolver's betas and epsilon, batch
// 1, no clipping, an optional L2 term) for parameters that live on the
// device: its moments are kept there and each Step is one kernel per
// parameter, so nothing crosses to the host.
type Adam struct {
	b      Backend
	params gorgonia.Nodes
	lr, l2 float64
	iter   int
	m, v   []*tensor.Dense
}

// NewAdam returns an Adam over params (device values) with learning rate
// lr and L2 weight decay l2 (0: none).
func NewAdam(b Backend, params gorgonia.Nodes, lr, l2 float64) (*Adam, error) {
	a := &Adam{b: b, params: params, lr: lr, l2: l2}
	for _, p := range params {
		w, ok := p.Value().(*tensor.Dense)
		if !ok || !On(w) {
			return nil, fmt.Errorf("device: parameter %q is not on the device", p.Name())
		}
		m, err := b.Keep(w.Dtype(), w.Shape().Clone())
		if err != nil {
			return nil, err
		}
		v, err := b.Keep(w.Dtype(), w.Shape().Clone())
		if err != nil {
			return nil, err
		}
		a.m, a.v = append(a.m, m), append(a.v, v)
	}
	return a, nil
}

// Step updates the parameters from grads (their gradients, device values,
// in parameter order) with the constants of Gorgonia's AdamSolver,
// computed in the parameters' type as it computes them.
func (a *Adam) Step(grads []gorgonia.Value) error {
	if len(grads) != len(a.params) {
		return fmt.Errorf("device: Adam: %d gradients for %d parameters", len(grads), len(a.params))
	}
	a.iter++
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(beta1, float64(a.iter))
	c2 := 1 - math.Pow(beta2, float64(a.iter))
	for i, p := range a.params {
		w := p.Value().(*tensor.Dense)
		g, ok := grads[i].(*tensor.Dense)
		if !ok || !On(g) {
			return fmt.Errorf("device: Adam: the gradient of %q is not on the device", p.Name())
		}
		h := AdamHyper{UseL2: a.l2 > 0}
		if w.Dtype() == tensor.Float32 {
			h.L2, h.OmB1, h.OmB2 = float64(float32(a.l2)), float64(float32(1)-float32(beta1)), float64(float32(1)-float32(beta2))
			h.B1, h.B2, h.Eps, h.NegEta = float64(float32(beta1)), float64(float32(beta2)), float64(float32(eps)), float64(-float32(a.lr))
			h.C1, h.C2 = float64(float32(1)/float32(c1)), float64(float32(1)/float32(c2))
		} else {
			h.L2, h.OmB1, h.OmB2, h.B1, h.B2, h.Eps, h.NegEta = a.l2, 1-beta1, 1-beta2, beta1, beta2, eps, -a.lr
			h.C1, h.C2 = 1/c1, 1/c2
		}
		if err := a.b.Adam(w, g, a.m[i], a.v[i], h); err != nil {
			return fmt.Errorf("device: Adam: %q: %w", p.Name(), err)
		}
	}
	return nil
}

// StepNodes is Step with the gradients read from gradient nodes, one per
// parameter in parameter order.
func (a *Adam) StepNodes(grads gorgonia.Nodes) error {
	vals := make([]gorgonia.Value, len(grads))
	for i, g := range grads {
		vals[i] = g.Value()
	}
	return a.Step(vals)
}
