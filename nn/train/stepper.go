package train

import (
	"fmt"
	"math"
)

// Stepper runs a task's training steps (forward, backward and the Adam
// step of every group) where Fit would run them, without evaluation: the
// loop of a benchmark, or a caller's own. The task needs a loss and
// parameters; its logits, labels and splits are not read.
type Stepper struct {
	t *Task
	p placement
}

// NewStepper differentiates the task's loss and places its steps: on the
// host, or on the device when its features live there. cfg's learning rate
// is used; data-parallel training (cfg.Sync) is Fit's only.
func NewStepper(t *Task, cfg Config) (*Stepper, error) {
	if t == nil || t.Loss == nil {
		return nil, fmt.Errorf("train: a stepper needs a task with a loss")
	}
	if !(cfg.LearningRate > 0) || math.IsInf(cfg.LearningRate, 0) {
		return nil, fmt.Errorf("train: need a positive, finite learning rate, got %v", cfg.LearningRate)
	}
	if cfg.Sync != nil {
		return nil, fmt.Errorf("train: a stepper does not train data-parallel (Config.Sync): use Fit")
	}
	n := 0
	for i, g := range t.Groups {
		if !(g.WeightDecay >= 0) || math.IsInf(g.WeightDecay, 0) {
			return nil, fmt.Errorf("train: group %d: weight decay %v, want a finite number >= 0", i, g.WeightDecay)
		}
		n += len(g.Params)
	}
	if n == 0 {
		return nil, fmt.Errorf("train: no parameters")
	}
	p, err := place(t, cfg)
	if err != nil {
		return nil, err
	}
	return &Stepper{t: t, p: p}, nil
}

// Step advances the task's mode (to training, next dropout masks), runs
// one training step and returns its loss: the loss before the step, as
// Epoch.Loss. A loss that is not finite is an error, and the parameters
// are then left as they were.
func (s *Stepper) Step() (float64, error) {
	if m := s.t.Mode; m != nil {
		m.Train()
		m.Next()
	}
	return step(s.p)
}

// Close releases the stepper's machines; the parameters keep their values.
func (s *Stepper) Close() { s.p.close() }

// step runs p forward and, when the loss is finite, steps the optimiser.
func step(p placement) (float64, error) {
	loss, err := p.forward()
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, fmt.Errorf("the training loss is %v: the run diverged (lower the learning rate?)", loss)
	}
	return loss, p.step()
}
