package train_test

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn/train"
)

// TestStepper checks that a Stepper's steps give the training losses of
// Fit's epochs, to the bit, and that it rejects what it cannot run.
func TestStepper(t *testing.T) {
	res, err := train.Fit(gcnTask(t), train.Config{Epochs: 5, LearningRate: 0.01}, nil)
	if err != nil {
		t.Fatal(err)
	}
	task := gcnTask(t)
	task.Logits = nil // a stepper does not evaluate
	s, err := train.NewStepper(task, train.Config{LearningRate: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, e := range res.History {
		l, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if l != e.Loss {
			t.Errorf("step %d: loss %v, Fit's epoch %d had %v", i+1, l, e.Epoch, e.Loss)
		}
	}
	for _, c := range []struct {
		task *train.Task
		cfg  train.Config
		want string
	}{
		{nil, train.Config{LearningRate: 0.01}, "needs a task with a loss"},
		{task, train.Config{}, "learning rate"},
		{&train.Task{Loss: task.Loss}, train.Config{LearningRate: 0.01}, "no parameters"},
		{task, train.Config{LearningRate: 0.01, Sync: nopSync{}}, "data-parallel"},
	} {
		if _, err := train.NewStepper(c.task, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// nopSync is a Sync of one rank.
type nopSync struct{}

func (nopSync) Params(gorgonia.Nodes) error { return nil }
func (nopSync) Grads(gorgonia.Nodes) error  { return nil }
func (nopSync) Sum([]float64) error         { return nil }
