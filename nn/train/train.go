package train

import (
	"fmt"
	"math"
	"time"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/enum"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/vm"
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
	// Patience stops training after that many epochs in a row in which
	// neither the validation accuracy nor the validation loss reached a new
	// best; 0 trains for all epochs.
	Patience int
	// Select is the epoch whose weights and test accuracy the run keeps:
	// the best validation accuracy (the default) or the lowest validation
	// loss.
	Select Selection
	// Sync, when not nil, makes Fit train one rank of a data-parallel job
	// (dist/sar.NewSync): the ranks start from rank 0's parameters, sum
	// their gradients before every step, and report the loss and
	// accuracies of all ranks' nodes together. Each rank's Loss must then
	// be its share of the global loss (dist/sar.CrossEntropy), and its
	// splits its own nodes, any of which may be empty.
	Sync Sync
}

// Selection says which epoch of a run Fit keeps.
type Selection uint8

const (
	// BestAccuracy keeps the epoch of the best validation accuracy, ties
	// going to the lower validation loss, then to the earlier epoch.
	BestAccuracy Selection = iota
	// LowestLoss keeps the epoch of the lowest validation loss, ties going
	// to the earlier epoch.
	LowestLoss
)

func (s Selection) String() string {
	return enum.Name(s, "Selection", "best validation accuracy", "lowest validation loss")
}

// Sync is what a data-parallel job does between the ranks' Fit calls; every
// rank calls the methods in the same order.
type Sync interface {
	// Params sets every rank's parameters to rank 0's values.
	Params(params gorgonia.Nodes) error
	// Grads replaces the parameters' gradients by their sums over the
	// ranks.
	Grads(params gorgonia.Nodes) error
	// Sum replaces v by its elementwise sum over the ranks.
	Sum(v []float64) error
}

// Epoch is what one epoch measured.
type Epoch struct {
	Epoch                     int
	Loss                      float64 // training loss (with dropout, before the step)
	ValLoss                   float64 // validation loss in evaluation mode
	TrainAcc, ValAcc, TestAcc float64
	Time                      time.Duration // forward, backward and the optimiser step
}

// Result sums up a run. When Fit returns, the parameters hold the weights
// of BestEpoch (not those of the last epoch), so that evaluating or saving
// the model reproduces Test.
type Result struct {
	History   []Epoch
	BestEpoch int     // the epoch Config.Select chose
	BestVal   float64 // its validation accuracy
	Test      float64 // its test accuracy
}

// Fit trains the task. onEpoch, if not nil, is called after every epoch.
// It stops with an error naming the epoch when the training or validation
// loss is not finite (the run diverged). On return, with or without an
// error, the parameters hold the weights of the best epoch so far (see
// Result); the optimiser's state is not kept.
func Fit(t *Task, cfg Config, onEpoch func(Epoch)) (*Result, error) {
	if err := check(t, cfg); err != nil {
		return nil, err
	}
	p, err := place(t, cfg)
	if err != nil {
		return nil, err
	}
	defer p.close()
	best, err := p.snapshot()
	if err != nil {
		return nil, err
	}
	res := &Result{BestEpoch: -1}
	// Whatever happens below, leave the model with the best weights seen.
	defer func() {
		if res.BestEpoch > 0 {
			// A device copy failing here leaves the last epoch's weights;
			// the device is broken by then and the run has failed anyway.
			_ = best.restore()
		}
		if t.Mode != nil {
			t.Mode.Train()
		}
	}()
	var stop stopping
	for ep := 1; ep <= cfg.Epochs; ep++ {
		e, err := epoch(t, p, ep)
		if err != nil {
			return nil, fmt.Errorf("train: epoch %d: %w", ep, err)
		}
		res.History = append(res.History, e)
		if onEpoch != nil {
			onEpoch(e)
		}
		if stop.better(res, e, cfg.Select) {
			if err := best.take(); err != nil {
				return nil, fmt.Errorf("train: epoch %d: keeping the best weights: %w", ep, err)
			}
		}
		if stop.patienceOver(e, cfg.Patience) {
			break
		}
	}
	return res, nil
}

// epoch runs epoch ep of p: a training step, then evaluation.
func epoch(t *Task, p placement, ep int) (Epoch, error) {
	start := time.Now()
	if t.Mode != nil {
		t.Mode.Train()
		t.Mode.Next()
	}
	loss, err := step(p)
	if err != nil {
		return Epoch{}, err
	}
	e := Epoch{Epoch: ep, Loss: loss, Time: time.Since(start)}
	if err := p.evaluate(&e); err != nil {
		return e, fmt.Errorf("evaluation: %w", err)
	}
	if math.IsNaN(e.ValLoss) || math.IsInf(e.ValLoss, 0) {
		return e, fmt.Errorf("the validation loss after the step is %v: the run diverged (lower the learning rate?)", e.ValLoss)
	}
	return e, nil
}

// stopping is the state of the selection of the best epoch and of early
// stopping.
type stopping struct {
	bestLoss, minLoss float64
	since             int
	improved          bool
}

// better records e in res when it is the best epoch so far by sel, and
// reports whether it is.
func (s *stopping) better(res *Result, e Epoch, sel Selection) bool {
	b := e.ValAcc > res.BestVal || (e.ValAcc == res.BestVal && e.ValLoss < s.bestLoss)
	if sel == LowestLoss {
		b = e.ValLoss < s.bestLoss
	}
	s.improved = false
	if res.BestEpoch < 0 || b {
		res.BestEpoch, res.BestVal, res.Test = e.Epoch, e.ValAcc, e.TestAcc
		s.bestLoss = e.ValLoss
		s.improved = true
		return true
	}
	return false
}

// patienceOver reports whether patience epochs in a row have now passed
// without a new best validation accuracy or loss. Patience follows the GAT
// paper: it restarts whenever either improves.
func (s *stopping) patienceOver(e Epoch, patience int) bool {
	if e.Epoch == 1 || e.ValLoss < s.minLoss {
		s.minLoss = e.ValLoss
		s.improved = true
	}
	if s.improved {
		s.since = 0
		return false
	}
	s.since++
	return patience > 0 && s.since >= patience
}

// check validates a task and a configuration before anything is built.
func check(t *Task, cfg Config) error {
	if t.Logits == nil || t.Loss == nil {
		return fmt.Errorf("train: task needs logits and a loss")
	}
	if cfg.Epochs <= 0 || !(cfg.LearningRate > 0) || math.IsInf(cfg.LearningRate, 0) {
		return fmt.Errorf("train: need positive epochs and a positive, finite learning rate, got %d and %v", cfg.Epochs, cfg.LearningRate)
	}
	if cfg.Select > LowestLoss {
		return fmt.Errorf("train: unknown %v", cfg.Select)
	}
	if cfg.Patience < 0 {
		return fmt.Errorf("train: patience %d is negative (0 trains for all epochs)", cfg.Patience)
	}
	if split := []float64{float64(len(t.Train)), float64(len(t.Val)), float64(len(t.Test))}; cfg.Sync != nil {
		if err := cfg.Sync.Sum(split); err != nil {
			return fmt.Errorf("train: counting the splits: %w", err)
		}
		if split[0] == 0 || split[1] == 0 || split[2] == 0 {
			return fmt.Errorf("train: empty split over all ranks (train %g, val %g, test %g)", split[0], split[1], split[2])
		}
	} else if len(t.Train) == 0 || len(t.Val) == 0 || len(t.Test) == 0 {
		return fmt.Errorf("train: empty split (train %d, val %d, test %d)", len(t.Train), len(t.Val), len(t.Test))
	}
	n := 0
	for i, g := range t.Groups {
		if !(g.WeightDecay >= 0) || math.IsInf(g.WeightDecay, 0) {
			return fmt.Errorf("train: group %d: weight decay %v, want a finite number >= 0", i, g.WeightDecay)
		}
		n += len(g.Params)
	}
	if n == 0 {
		return fmt.Errorf("train: no parameters")
	}
	return nil
}

// Evaluate runs the task's model forward in evaluation mode and returns
// its accuracy on the three splits and its validation loss (Epoch's Loss
// and Time are left zero): for a model whose parameters were loaded from a
// file, or after Fit.
func Evaluate(t *Task) (Epoch, error) {
	var e Epoch
	if t.Logits == nil {
		return e, fmt.Errorf("train: task needs logits")
	}
	if t.Mode != nil {
		defer t.Mode.Train()
	}
	var eval gorgonia.VM
	var dev *deviceRun
	if b := onDevice(t.Logits.Graph()); b != nil {
		eval = gorgonia.NewTapeMachine(t.Logits.Graph().SubgraphRoots(t.Logits))
		dev = &deviceRun{b: b}
		if err := dev.bind(eval); err != nil {
			nn.CloseVM(eval)
			return e, fmt.Errorf("train: %w", err)
		}
	} else {
		m, err := vm.New(gorgonia.Nodes{t.Logits})
		if err != nil {
			return e, fmt.Errorf("train: %w", err)
		}
		eval = m
	}
	defer nn.CloseVM(eval)
	if err := evaluate(eval, t, dev, &e); err != nil {
		return e, fmt.Errorf("train: evaluation: %w", err)
	}
	return e, nil
}

// evaluate runs eval, which computes t.Logits, in evaluation mode and fills
// in e's accuracies and validation loss.
func evaluate(eval gorgonia.VM, t *Task, dev *deviceRun, e *Epoch) error {
	return runEval(eval, t, dev, func(logits gorgonia.Value) error {
		if dev != nil {
			return dev.metrics(logits, t, e)
		}
		return metrics(logits, t, e)
	})
}

// runEval runs eval, which computes t.Logits, in evaluation mode and hands
// the logits (on the device, for a device run) to use before the machine is
// reset.
func runEval(eval gorgonia.VM, t *Task, dev *deviceRun, use func(logits gorgonia.Value) error) error {
	if t.Mode != nil {
		t.Mode.Eval()
	}
	defer eval.Reset()
	if dev != nil {
		if err := dev.start(); err != nil {
			return err
		}
	}
	if err := eval.RunAll(); err != nil {
		return err
	}
	return use(t.Logits.Value())
}

// metrics fills in e's accuracies and validation loss from the logits.
func metrics(logits gorgonia.Value, t *Task, e *Epoch) error {
	var err error
	for _, a := range []struct {
		dst   *float64
		nodes []int32
	}{{&e.TrainAcc, t.Train}, {&e.ValAcc, t.Val}, {&e.TestAcc, t.Test}} {
		if *a.dst, err = nn.Accuracy(logits, t.Labels, a.nodes); err != nil {
			return err
		}
	}
	e.ValLoss, err = nn.CrossEntropyOf(logits, t.Labels, t.Val)
	return err
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
