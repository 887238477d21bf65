package bench

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// Task is a model built on an expression graph, ready to be trained: its
// loss, its parameters in weight-decay groups and the learning rate.
type Task struct {
	Loss   *gorgonia.Node
	Groups []train.Group
	Mode   *nn.Mode // advanced before every epoch; may be nil
	LR     float64
}

// classify is the task of training logits on d's training labels by
// cross-entropy with Adam at learning rate lr, the parameters in groups.
func classify(d *Data, logits *gorgonia.Node, mode *nn.Mode, lr float64, groups ...train.Group) (*Task, error) {
	loss, err := nn.CrossEntropy(logits, d.Labels, d.Train)
	if err != nil {
		return nil, err
	}
	return &Task{Loss: loss, Groups: groups, Mode: mode, LR: lr}, nil
}

// Trainer runs a Task's epochs: nn/train's Stepper, which places them on
// the host (nn/vm machines) or, with the features on a device, there.
type Trainer struct {
	s *train.Stepper
}

// NewTrainer differentiates the task's loss and places its steps, as
// nn/train.Fit does. Close it when done.
func NewTrainer(t *Task) (*Trainer, error) {
	n := 0
	for _, g := range t.Groups {
		n += len(g.Params)
	}
	if t.Loss == nil || n == 0 || !(t.LR > 0) {
		return nil, fmt.Errorf("bench: a task needs a loss, parameters and a learning rate")
	}
	s, err := train.NewStepper(&train.Task{Loss: t.Loss, Groups: t.Groups, Mode: t.Mode}, train.Config{LearningRate: t.LR})
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return &Trainer{s: s}, nil
}

// Epoch runs one training step: forward, backward and the Adam step. It
// returns the loss.
func (tr *Trainer) Epoch() (float64, error) { return tr.s.Step() }

// Close releases the machines.
func (tr *Trainer) Close() error {
	tr.s.Close()
	return nil
}
