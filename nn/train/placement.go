package train

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
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

// syncRun trains one rank of a data-parallel job on the host: after the
// backward the ranks sum their losses and gradients (Sync reads the
// gradients from the parameters' dual values, so this runs Gorgonia's
// tape machine), and evaluation counts over the nodes of all ranks.
type syncRun struct {
	t        *Task
	s        Sync
	params   gorgonia.Nodes
	vm, eval gorgonia.VM
	solvers  []gorgonia.Solver
}

func newSyncRun(t *Task, s Sync, params, grads gorgonia.Nodes, lr float64) (*syncRun, error) {
	eg := t.Loss.Graph()
	r := &syncRun{t: t, s: s, params: params, solvers: newSolvers(t.Groups, lr),
		vm:   gorgonia.NewTapeMachine(eg.SubgraphRoots(append(gorgonia.Nodes{t.Loss}, grads...)...), gorgonia.BindDualValues(params...)),
		eval: gorgonia.NewTapeMachine(eg.SubgraphRoots(t.Logits)),
	}
	if err := s.Params(params); err != nil {
		r.close()
		return nil, fmt.Errorf("train: initial parameters: %w", err)
	}
	return r, nil
}

func (r *syncRun) forward() (float64, error) {
	r.vm.Reset()
	if err := r.vm.RunAll(); err != nil {
		return 0, err
	}
	loss := scalar(r.t.Loss.Value())
	err := syncStep(r.s, r.params, &loss)
	return loss, err
}

func (r *syncRun) step() error {
	for i, g := range r.t.Groups {
		if err := r.solvers[i].Step(gorgonia.NodesToValueGrads(g.Params)); err != nil {
			return fmt.Errorf("optimiser: %w", err)
		}
	}
	return nil
}

func (r *syncRun) evaluate(e *Epoch) error { return evaluateSync(r.eval, r.t, r.s, nil, e) }

func (r *syncRun) snapshot() (saved, error) { return snapshot(r.params) }

func (r *syncRun) close() {
	nn.CloseVM(r.vm)
	nn.CloseVM(r.eval)
}

// newSolvers returns an Adam solver per group, with the group's weight
// decay.
func newSolvers(groups []Group, lr float64) []gorgonia.Solver {
	solvers := make([]gorgonia.Solver, len(groups))
	for i, g := range groups {
		solvers[i] = newAdamSolver(lr, g.WeightDecay)
	}
	return solvers
}
