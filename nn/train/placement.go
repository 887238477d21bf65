package train

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/vm"
)

// placement is how Fit runs the steps of an epoch: on the host (hostRun),
// on a device (deviceRun) or as one rank of a data-parallel job
// (syncRun).
type placement interface {
	// forward runs the model forward and backward in training mode and
	// returns the training loss (over all ranks).
	forward() (float64, error)
	// step applies one optimiser step to every group with the gradients
	// of the last forward.
	step() error
	// evaluate fills in e's accuracies and validation loss in
	// evaluation mode.
	evaluate(e *Epoch) error
	// snapshot returns a copy of the parameters to keep the best epoch's
	// weights in.
	snapshot() (saved, error)
	close()
}

// place differentiates the task's loss and returns the placement its
// values call for: the device when features live there, a data-parallel
// rank with cfg.Sync, else the host.
func place(t *Task, cfg Config) (placement, error) {
	var params gorgonia.Nodes
	for _, g := range t.Groups {
		params = append(params, g.Params...)
	}
	grads, err := gorgonia.Grad(t.Loss, params...)
	if err != nil {
		return nil, fmt.Errorf("train: gradients: %w", err)
	}
	if b := onDevice(t.Loss.Graph()); b != nil {
		if cfg.Sync != nil {
			return nil, fmt.Errorf("train: data-parallel training (Config.Sync) on a device is not supported")
		}
		return newDeviceRun(b, t, params, grads, cfg.LearningRate)
	}
	if cfg.Sync != nil {
		return newSyncRun(t, cfg.Sync, params, grads, cfg.LearningRate)
	}
	return newHostRun(t, params, grads, cfg.LearningRate)
}

// hostRun trains on the host with nn/vm machines: no value is reallocated
// from one epoch to the next, and the gradients go to the solvers
// straight from the gradient nodes.
type hostRun struct {
	t             *Task
	params, grads gorgonia.Nodes
	vm, eval      *vm.Machine
	solvers       []gorgonia.Solver
}

func newHostRun(t *Task, params, grads gorgonia.Nodes, lr float64) (*hostRun, error) {
	// Only what the loss and the gradients need runs: no gradient of the
	// input features or other constants.
	// The two machines run in turn: one pool holds the larger of their
	// needs.
	pool := vm.NewPool()
	train, err := vm.New(append(gorgonia.Nodes{t.Loss}, grads...), vm.WithPool(pool))
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	h := &hostRun{t: t, params: params, grads: grads, vm: train, solvers: newSolvers(t.Groups, lr)}
	if t.Logits != nil { // a Stepper's task may have none
		if h.eval, err = vm.New(gorgonia.Nodes{t.Logits}, vm.WithPool(pool)); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	return h, nil
}

func (h *hostRun) forward() (float64, error) {
	if err := h.vm.RunAll(); err != nil {
		return 0, err
	}
	return scalar(h.t.Loss.Value()), nil
}

func (h *hostRun) step() error {
	off := 0
	for i, g := range h.t.Groups {
		model, err := h.vm.ValueGrads(g.Params, h.grads[off:off+len(g.Params)])
		if err != nil {
			return err
		}
		off += len(g.Params)
		if err := h.solvers[i].Step(model); err != nil {
			return fmt.Errorf("optimiser: %w", err)
		}
	}
	// The gradients are spent: their buffers go back to the pool, where
	// the evaluation machine finds them.
	h.vm.Reset()
	return nil
}

func (h *hostRun) evaluate(e *Epoch) error { return evaluate(h.eval, h.t, nil, e) }

func (h *hostRun) snapshot() (saved, error) { return snapshot(h.params) }

func (h *hostRun) close() {
	h.vm.Close()
	if h.eval != nil {
		h.eval.Close()
	}
}

// syncRun trains one rank of a data-parallel job on the host with nn/vm
// machines, as hostRun does: after the backward the ranks sum their
// losses and gradients, and evaluation counts over the nodes of all
// ranks. Sync reads the gradients with the parameters' Grad, which returns
// the value of the gradient node gorgonia.Grad made (the node's deriv)
// when no dual value is bound: forward makes that value the one the
// solver steps with (exposeGrads), so what Sync sums in place is what the
// step uses, with no dual values and no copy.
type syncRun struct {
	t             *Task
	s             Sync
	params, grads gorgonia.Nodes
	vm, eval      *vm.Machine
	solvers       []gorgonia.Solver
	model         []gorgonia.ValueGrad // the parameters with the gradients of the last forward
}

func newSyncRun(t *Task, s Sync, params, grads gorgonia.Nodes, lr float64) (*syncRun, error) {
	pool := vm.NewPool()
	train, err := vm.New(append(gorgonia.Nodes{t.Loss}, grads...), vm.WithPool(pool))
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	r := &syncRun{t: t, s: s, params: params, grads: grads, vm: train, solvers: newSolvers(t.Groups, lr)}
	if r.eval, err = vm.New(gorgonia.Nodes{t.Logits}, vm.WithPool(pool)); err != nil {
		r.close()
		return nil, fmt.Errorf("train: %w", err)
	}
	if err := s.Params(params); err != nil {
		r.close()
		return nil, fmt.Errorf("train: initial parameters: %w", err)
	}
	return r, nil
}

func (r *syncRun) forward() (float64, error) {
	if err := r.vm.RunAll(); err != nil {
		return 0, err
	}
	model, err := r.vm.ValueGrads(r.params, r.grads)
	if err != nil {
		return 0, err
	}
	if err := exposeGrads(r.params, r.grads, model); err != nil {
		return 0, err
	}
	r.model = model
	loss := scalar(r.t.Loss.Value())
	err = syncStep(r.s, r.params, &loss)
	return loss, err
}

func (r *syncRun) step() error {
	off := 0
	for i, g := range r.t.Groups {
		if err := r.solvers[i].Step(r.model[off : off+len(g.Params)]); err != nil {
			return fmt.Errorf("optimiser: %w", err)
		}
		off += len(g.Params)
	}
	r.vm.Reset() // as hostRun.step
	return nil
}

func (r *syncRun) evaluate(e *Epoch) error { return evaluateSync(r.eval, r.t, r.s, nil, e) }

func (r *syncRun) snapshot() (saved, error) { return snapshot(r.params) }

func (r *syncRun) close() {
	r.vm.Close()
	if r.eval != nil {
		r.eval.Close()
	}
}

// exposeGrads makes each parameter's Grad return the gradient model holds
// for it, the value the solver will step with, so that a Sync summing the
// gradients in place (Sync.Grads) changes that value. Grad returns the
// value bound to the parameter's gradient node: model's, unless the
// machine handed over a copy (ValueGrads copies a gradient it does not
// hold alone), which is bound to the node in its place. A parameter that
// still carries a dual value of another machine (a tape machine run with
// gorgonia.BindDualValues) returns the dual value's gradient: the
// gradient is copied there and the solver steps with that.
func exposeGrads(params, grads gorgonia.Nodes, model []gorgonia.ValueGrad) error {
	for i, p := range params {
		g, err := model[i].Grad()
		if err != nil {
			return fmt.Errorf("train: gradient of %q: %w", p.Name(), err)
		}
		cur, err := p.Grad()
		if err == nil && cur == g {
			continue
		}
		if op := grads[i].Op(); op != nil && op.Arity() > 0 && grads[i].Shape().Eq(g.Shape()) {
			// The machine binds the node afresh at its next run.
			if err := gorgonia.UnsafeLet(grads[i], g); err != nil {
				return fmt.Errorf("train: gradient of %q: %w", p.Name(), err)
			}
			if cur, err = p.Grad(); err == nil && cur == g {
				continue
			}
		}
		dst, ok := cur.(*tensor.Dense)
		src, ok2 := g.(*tensor.Dense)
		if err != nil || !ok || !ok2 || dst.Dtype() != src.Dtype() || dst.Size() != src.Size() {
			return fmt.Errorf("train: the gradient of %q that Sync would read (Grad) is not the one computed: data-parallel training needs it", p.Name())
		}
		if err := tensor.Copy(dst, src); err != nil {
			return fmt.Errorf("train: gradient of %q: %w", p.Name(), err)
		}
		model[i] = dualGrad{p, dst}
	}
	return nil
}

// dualGrad is a parameter with the gradient of its dual value.
type dualGrad struct {
	n *gorgonia.Node
	g gorgonia.Value
}

func (d dualGrad) Value() gorgonia.Value         { return d.n.Value() }
func (d dualGrad) Grad() (gorgonia.Value, error) { return d.g, nil }
func (d dualGrad) Name() string                  { return d.n.Name() }

// newSolvers returns an Adam solver per group, with the group's weight
// decay.
func newSolvers(groups []Group, lr float64) []gorgonia.Solver {
	solvers := make([]gorgonia.Solver, len(groups))
	for i, g := range groups {
		solvers[i] = newAdamSolver(lr, g.WeightDecay)
	}
	return solvers
}
