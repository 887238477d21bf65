package train

import (
	"fmt"
	"time"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
)

// Group is a set of parameters sharing a weight decay (an L2 penalty added
// to their gradients, as PyTorch's Adam weight_decay).
type Group struct {
	Params      gorgonia.Nodes
	WeightDecay float64
}

// Task is a model built on an expression graph, with what training needs.
type Task struct {
	Logits *gorgonia.Node // N x C
	Loss   *gorgonia.Node // scalar, over the training nodes
	Groups []Group
	Mode   *nn.Mode // switched to evaluation to measure accuracy; may be nil

	Labels           []int32
	Train, Val, Test []int32
}

// Config sets the optimiser and the stopping rule.
type Config struct {
	Epochs       int
	LearningRate float64
	// Patience stops training after that many epochs in which neither the
	// validation accuracy nor the validation loss improved; 0 trains for all
	// epochs.
	Patience int
}

// Epoch is what one epoch measured.
type Epoch struct {
	Epoch                     int
	Loss                      float64 // training loss (with dropout, before the step)
	ValLoss                   float64 // validation loss in evaluation mode
	TrainAcc, ValAcc, TestAcc float64
	Time                      time.Duration // forward, backward and the optimiser step
}

// Result sums up a run.
type Result struct {
	History   []Epoch
	BestEpoch int     // epoch of the best validation accuracy (lower validation loss, then earlier, on ties)
	BestVal   float64 // that accuracy
	Test      float64 // the test accuracy at BestEpoch
}

// Fit trains the task. onEpoch, if not nil, is called after every epoch.
func Fit(t *Task, cfg Config, onEpoch func(Epoch)) (*Result, error) {
	if t.Logits == nil || t.Loss == nil {
		return nil, fmt.Errorf("train: task needs logits and a loss")
	}
	if cfg.Epochs <= 0 || !(cfg.LearningRate > 0) {
		return nil, fmt.Errorf("train: need positive epochs and learning rate, got %d and %v", cfg.Epochs, cfg.LearningRate)
	}
	if len(t.Train) == 0 || len(t.Val) == 0 || len(t.Test) == 0 {
		return nil, fmt.Errorf("train: empty split (train %d, val %d, test %d)", len(t.Train), len(t.Val), len(t.Test))
	}
	var params gorgonia.Nodes
	for _, g := range t.Groups {
		params = append(params, g.Params...)
	}
	if len(params) == 0 {
		return nil, fmt.Errorf("train: no parameters")
	}
	eg := t.Loss.Graph()
	grads, err := gorgonia.Grad(t.Loss, params...)
	if err != nil {
		return nil, fmt.Errorf("train: gradients: %w", err)
	}
	// Compile only what is needed, so that no gradient is computed for the
	// input features or other constants.
	roots := append(gorgonia.Nodes{t.Loss, t.Logits}, grads...)
	vm := gorgonia.NewTapeMachine(eg.SubgraphRoots(roots...), gorgonia.BindDualValues(params...))
	defer vm.Close()
	eval := gorgonia.NewTapeMachine(eg.SubgraphRoots(t.Logits))
	defer eval.Close()

	solvers := make([]gorgonia.Solver, len(t.Groups))
	for i, g := range t.Groups {
		opts := []gorgonia.SolverOpt{gorgonia.WithLearnRate(cfg.LearningRate)}
		if g.WeightDecay > 0 {
			opts = append(opts, gorgonia.WithL2Reg(g.WeightDecay))
		}
		solvers[i] = gorgonia.NewAdamSolver(opts...)
	}

	res := &Result{BestEpoch: -1}
	since := 0
	var bestLoss, minLoss float64
	for ep := 1; ep <= cfg.Epochs; ep++ {
		start := time.Now()
		if t.Mode != nil {
			t.Mode.Train()
			t.Mode.Next()
		}
		if err := vm.RunAll(); err != nil {
			return nil, fmt.Errorf("train: epoch %d: %w", ep, err)
		}
		for i, g := range t.Groups {
			if err := solvers[i].Step(gorgonia.NodesToValueGrads(g.Params)); err != nil {
				return nil, fmt.Errorf("train: epoch %d: optimiser: %w", ep, err)
			}
		}
		vm.Reset()
		elapsed := time.Since(start)
		e := Epoch{Epoch: ep, Loss: scalar(t.Loss.Value()), Time: elapsed}

		if t.Mode != nil {
			t.Mode.Eval()
		}
		if err := eval.RunAll(); err != nil {
			return nil, fmt.Errorf("train: epoch %d: evaluation: %w", ep, err)
		}
		logits := t.Logits.Value()
		eval.Reset()
		for _, a := range []struct {
			dst   *float64
			nodes []int32
		}{{&e.TrainAcc, t.Train}, {&e.ValAcc, t.Val}, {&e.TestAcc, t.Test}} {
			if *a.dst, err = nn.Accuracy(logits, t.Labels, a.nodes); err != nil {
				return nil, err
			}
		}
		if e.ValLoss, err = nn.CrossEntropyOf(logits, t.Labels, t.Val); err != nil {
			return nil, err
		}
		res.History = append(res.History, e)
		if onEpoch != nil {
			onEpoch(e)
		}
		// Patience follows the GAT paper: it restarts whenever validation
		// accuracy or validation loss improves.
		improved := false
		if res.BestEpoch < 0 || e.ValAcc > res.BestVal || (e.ValAcc == res.BestVal && e.ValLoss < bestLoss) {
			res.BestEpoch, res.BestVal, res.Test = ep, e.ValAcc, e.TestAcc
			improved = true
		}
		if ep == 1 || e.ValLoss < minLoss {
			minLoss = e.ValLoss
			improved = true
		}
		if e.Epoch == res.BestEpoch {
			bestLoss = e.ValLoss
		}
		if improved {
			since = 0
		} else if since++; cfg.Patience > 0 && since >= cfg.Patience {
			break
		}
	}
	if t.Mode != nil {
		t.Mode.Train()
	}
	return res, nil
}

func scalar(v gorgonia.Value) float64 {
	switch d := v.Data().(type) {
	case float32:
		return float64(d)
	case float64:
		return d
	}
	return 0
}
