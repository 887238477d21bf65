package bench

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/device"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/nn/vm"
)

// Task is a model built on an expression graph, ready to be trained: its
// loss, its parameters in weight-decay groups and the learning rate.
type Task struct {
	Loss   *gorgonia.Node
	Groups []train.Group
	Mode   *nn.Mode // advanced before every epoch; may be nil
	LR     float64
}

// Trainer runs a Task's epochs.
type Trainer struct {
	t       *Task
	vm      gorgonia.VM
	host    *vm.Machine // vm on the CPU, nil on the device
	grads   gorgonia.Nodes
	solvers []gorgonia.Solver
	dev     *deviceTrainer // nil on the CPU
}

// NewTrainer differentiates the task's loss and compiles a machine over
// what the loss and the gradients need, as nn/train.Fit does: an nn/vm
// machine on the CPU, a TapeMachine on the device. Close it when done.
func NewTrainer(t *Task) (*Trainer, error) {
	var params gorgonia.Nodes
	for _, g := range t.Groups {
		params = append(params, g.Params...)
	}
	if t.Loss == nil || len(params) == 0 || !(t.LR > 0) {
		return nil, fmt.Errorf("bench: a task needs a loss, parameters and a learning rate")
	}
	grads, err := gorgonia.Grad(t.Loss, params...)
	if err != nil {
		return nil, fmt.Errorf("bench: gradients: %w", err)
	}
	roots := append(gorgonia.Nodes{t.Loss}, grads...)
	tr := &Trainer{t: t, grads: grads}
	if b := device.Current(); b != nil {
		sub := t.Loss.Graph().SubgraphRoots(roots...)
		// Features on the device: no dual values (they add gradients on
		// the host), the device engine for Gorgonia's gradient sums.
		tr.vm = gorgonia.NewTapeMachine(sub)
		tr.dev = &deviceTrainer{b: b, grads: grads}
		if err := device.Bind(tr.vm, device.Engine{B: b}); err != nil {
			return nil, err
		}
		if device.On(params[0].Value()) {
			for _, g := range t.Groups {
				a, err := device.NewAdam(b, g.Params, t.LR, g.WeightDecay)
				if err != nil {
					return nil, err
				}
				tr.dev.adam = append(tr.dev.adam, a)
			}
		}
	} else {
		if tr.host, err = vm.New(roots); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		tr.vm = tr.host
	}
	for _, g := range t.Groups {
		opts := []gorgonia.SolverOpt{gorgonia.WithLearnRate(t.LR)}
		if g.WeightDecay > 0 {
			opts = append(opts, gorgonia.WithL2Reg(g.WeightDecay))
		}
		tr.solvers = append(tr.solvers, gorgonia.NewAdamSolver(opts...))
	}
	return tr, nil
}

// Epoch runs one training step: forward, backward and the Adam step. It
// returns the loss.
func (tr *Trainer) Epoch() (float64, error) {
	if m := tr.t.Mode; m != nil {
		m.Train()
		m.Next()
	}
	if tr.dev != nil {
		if err := tr.dev.b.Recycle(); err != nil {
			return 0, err
		}
	}
	if err := tr.vm.RunAll(); err != nil {
		return 0, err
	}
	loss := scalar(tr.t.Loss.Value())
	off := 0
	for i, g := range tr.t.Groups {
		if tr.dev != nil && tr.dev.adam != nil {
			if err := tr.dev.adamStep(i, g.Params, off); err != nil {
				tr.vm.Reset()
				return 0, err
			}
			off += len(g.Params)
			continue
		}
		var model []gorgonia.ValueGrad
		if tr.host != nil {
			var err error
			if model, err = tr.host.ValueGrads(g.Params, tr.grads[off:off+len(g.Params)]); err != nil {
				return 0, err
			}
		}
		if tr.dev != nil {
			var err error
			if model, err = tr.dev.valueGrads(g.Params, off); err != nil {
				tr.vm.Reset()
				return 0, err
			}
		}
		off += len(g.Params)
		if err := tr.solvers[i].Step(model); err != nil {
			return 0, fmt.Errorf("bench: optimiser: %w", err)
		}
	}
	tr.vm.Reset()
	return loss, nil
}

// Close releases the machine.
func (tr *Trainer) Close() error { return tr.vm.Close() }

func scalar(v gorgonia.Value) float64 {
	if v == nil {
		return math.NaN()
	}
	switch d := v.Data().(type) {
	case float32:
		return float64(d)
	case float64:
		return d
	case []float32:
		if len(d) == 1 {
			return float64(d[0])
		}
	case []float64:
		if len(d) == 1 {
			return d[0]
		}
	}
	return math.NaN()
}
