package train

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
)

// syncStep sums the loss and the gradients over the ranks of s (nothing
// without one).
func syncStep(s Sync, params gorgonia.Nodes, loss *float64) error {
	if s == nil {
		return nil
	}
	v := []float64{*loss}
	if err := s.Sum(v); err != nil {
		return fmt.Errorf("summing the loss: %w", err)
	}
	*loss = v[0]
	if err := s.Grads(params); err != nil {
		return fmt.Errorf("summing the gradients: %w", err)
	}
	return nil
}

// evaluateSync is evaluate over the nodes of all ranks of s: each rank
// counts its correct predictions and sums its validation losses, and the
// ranks add them up.
func evaluateSync(eval gorgonia.VM, t *Task, s Sync, dev *deviceRun, e *Epoch) error {
	if s == nil {
		return evaluate(eval, t, dev, e)
	}
	return runEval(eval, t, dev, func(logits gorgonia.Value) error { return sumMetrics(logits, t, s, e) })
}

// sumMetrics is metrics over the nodes of all ranks of s.
func sumMetrics(logits gorgonia.Value, t *Task, s Sync, e *Epoch) error {
	// correct and total of train, val and test, then the summed val loss
	var v [7]float64
	for i, nodes := range [][]int32{t.Train, t.Val, t.Test} {
		if len(nodes) == 0 {
			continue
		}
		acc, err := nn.Accuracy(logits, t.Labels, nodes)
		if err != nil {
			return err
		}
		v[2*i], v[2*i+1] = math.Round(acc*float64(len(nodes))), float64(len(nodes))
	}
	if len(t.Val) > 0 {
		loss, err := nn.CrossEntropyOf(logits, t.Labels, t.Val)
		if err != nil {
			return err
		}
		v[6] = loss * float64(len(t.Val))
	}
	if err := s.Sum(v[:]); err != nil {
		return fmt.Errorf("summing the metrics: %w", err)
	}
	e.TrainAcc, e.ValAcc, e.TestAcc = v[0]/v[1], v[2]/v[3], v[4]/v[5]
	e.ValLoss = v[6] / v[3]
	return nil
}
