package train_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

// plantedSelfLoops returns a planted-partition data set of the given nodes
// and features and its graph with self-loops.
func plantedSelfLoops(t *testing.T, nodes, features int) (*dataset.Dataset, *graph.Graph) {
	t.Helper()
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = nodes, features
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	return ds, g
}

// gcnTask builds a two-layer GCN on a small planted-partition graph.
func gcnTask(t *testing.T) *train.Task {
	t.Helper()
	ds, g := plantedSelfLoops(t, 700, 32)
	eg := gorgonia.NewGraph()
	f := ds.Features
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))))
	mode := nn.NewMode()
	l1, err := gcn.New(eg, f.Cols, 16, gcn.WithSeed(1), gcn.WithActivation(gorgonia.Rectify))
	if err != nil {
		t.Fatal(err)
	}
	l2, err := gcn.New(eg, 16, ds.NumClasses, gcn.WithSeed(2))
	if err != nil {
		t.Fatal(err)
	}
	h, err := l1.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	if h, err = nn.Dropout(h, 0.5, 3, mode); err != nil {
		t.Fatal(err)
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		t.Fatal(err)
	}
	return &train.Task{
		Logits: logits, Loss: loss, Mode: mode,
		Groups: []train.Group{{Params: l1.Learnables(), WeightDecay: 5e-4}, {Params: l2.Learnables()}},
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test,
	}
}

func TestFit(t *testing.T) {
	task := gcnTask(t)
	var seen int
	res, err := train.Fit(task, train.Config{Epochs: 60, LearningRate: 0.01}, func(train.Epoch) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	if seen != 60 || len(res.History) != 60 {
		t.Fatalf("%d callbacks, %d epochs of history; want 60", seen, len(res.History))
	}
	first, last := res.History[0], res.History[59]
	if !(last.Loss < first.Loss/2) {
		t.Errorf("loss went from %.4f to %.4f", first.Loss, last.Loss)
	}
	if res.BestVal < 0.7 {
		t.Errorf("best validation accuracy %.4f, want a trained model (>= 0.7)", res.BestVal)
	}
	if got := res.History[res.BestEpoch-1]; got.ValAcc != res.BestVal || got.TestAcc != res.Test {
		t.Errorf("result %+v does not match its epoch %+v", res, got)
	}
	if !task.Mode.Training() {
		t.Errorf("Fit left the mode in evaluation")
	}
}

func TestFitPatience(t *testing.T) {
	res, err := train.Fit(gcnTask(t), train.Config{Epochs: 500, LearningRate: 0.05, Patience: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.History)
	if n >= 500 || n < res.BestEpoch+5 {
		t.Fatalf("stopped after %d epochs with best epoch %d; want at least best + 5", n, res.BestEpoch)
	}
	// The last 5 epochs improved neither accuracy nor loss.
	minLoss := res.History[0].ValLoss
	for _, e := range res.History[:n-5] {
		minLoss = min(minLoss, e.ValLoss)
	}
	for _, e := range res.History[n-5:] {
		if e.ValLoss < minLoss || e.ValAcc > res.BestVal {
			t.Errorf("epoch %d improved (loss %.4f < %.4f or accuracy %.4f) but training stopped", e.Epoch, e.ValLoss, minLoss, e.ValAcc)
		}
	}
}

func TestFitErrors(t *testing.T) {
	task := gcnTask(t)
	for _, c := range []struct {
		cfg  train.Config
		edit func(*train.Task)
		want string
	}{
		{train.Config{Epochs: 0, LearningRate: 0.01}, nil, "positive epochs"},
		{train.Config{Epochs: 1, LearningRate: 0}, nil, "learning rate"},
		{train.Config{Epochs: 1, LearningRate: 0.01}, func(t *train.Task) { t.Val = nil }, "empty split"},
		{train.Config{Epochs: 1, LearningRate: 0.01}, func(t *train.Task) { t.Groups = nil }, "no parameters"},
		{train.Config{Epochs: 1, LearningRate: math.Inf(1)}, nil, "finite learning rate"},
		{train.Config{Epochs: 1, LearningRate: 0.01, Patience: -1}, nil, "patience -1 is negative"},
		{train.Config{Epochs: 1, LearningRate: 0.01}, func(t *train.Task) {
			t.Groups = []train.Group{t.Groups[0], {Params: t.Groups[1].Params, WeightDecay: -1e-4}}
		}, "group 1: weight decay -0.0001"},
	} {
		tk := *task
		if c.edit != nil {
			c.edit(&tk)
		}
		if _, err := train.Fit(&tk, c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestFitRestoresBest checks that Fit leaves the model with the weights of
// the best epoch, not the last: evaluating it, or saving it and loading the
// file into a model built afresh, gives the reported test accuracy and
// that epoch's validation loss, to the bit.
func TestFitRestoresBest(t *testing.T) {
	task := gcnTask(t)
	res, err := train.Fit(task, train.Config{Epochs: 40, LearningRate: 0.05}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.BestEpoch == len(res.History) {
		t.Fatalf("the best epoch is the last (%d): the test proves nothing", res.BestEpoch)
	}
	best := res.History[res.BestEpoch-1]
	same := func(what string, e train.Epoch) {
		t.Helper()
		if e.TestAcc != res.Test || e.ValAcc != res.BestVal || e.ValLoss != best.ValLoss {
			t.Errorf("%s: test %.4f, validation %.4f, validation loss %.6f; Fit reported %.4f, %.4f and %.6f at epoch %d",
				what, e.TestAcc, e.ValAcc, e.ValLoss, res.Test, res.BestVal, best.ValLoss, res.BestEpoch)
		}
	}
	e, err := train.Evaluate(task)
	if err != nil {
		t.Fatal(err)
	}
	same("after Fit", e)
	if !task.Mode.Training() {
		t.Errorf("Evaluate left the mode in evaluation")
	}

	path := filepath.Join(t.TempDir(), "gcn.params")
	if err := nn.SaveParams(path, params(task)); err != nil {
		t.Fatal(err)
	}
	fresh := gcnTask(t)
	if err := nn.LoadParams(path, params(fresh)); err != nil {
		t.Fatal(err)
	}
	if e, err = train.Evaluate(fresh); err != nil {
		t.Fatal(err)
	}
	same("saved and loaded into a new model", e)
}

func params(t *train.Task) gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, g := range t.Groups {
		ps = append(ps, g.Params...)
	}
	return ps
}

// TestFitDiverges checks that a run whose loss stops being finite ends
// with an error naming the epoch, and leaves finite weights behind.
func TestFitDiverges(t *testing.T) {
	task := gcnTask(t)
	_, err := train.Fit(task, train.Config{Epochs: 20, LearningRate: 1e30}, nil)
	if err == nil || !strings.Contains(err.Error(), "train: epoch ") || !strings.Contains(err.Error(), "diverged") {
		t.Fatalf("error %v, want the epoch where the loss stopped being finite", err)
	}
	for _, p := range params(task) {
		for _, v := range p.Value().Data().([]float32) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s holds %v after the diverged run", p.Name(), v)
			}
		}
	}
}

// TestFitLowestLoss checks that with LowestLoss the run keeps the epoch of
// the lowest validation loss, and its weights.
func TestFitLowestLoss(t *testing.T) {
	task := gcnTask(t)
	res, err := train.Fit(task, train.Config{Epochs: 40, LearningRate: 0.05, Select: train.LowestLoss}, nil)
	if err != nil {
		t.Fatal(err)
	}
	low := res.History[0]
	for _, e := range res.History {
		if e.ValLoss < low.ValLoss {
			low = e
		}
	}
	if res.BestEpoch != low.Epoch || res.BestVal != low.ValAcc || res.Test != low.TestAcc {
		t.Errorf("kept epoch %d (validation %.4f, test %.4f), the lowest validation loss is at epoch %d", res.BestEpoch, res.BestVal, res.Test, low.Epoch)
	}
	e, err := train.Evaluate(task)
	if err != nil {
		t.Fatal(err)
	}
	if e.ValLoss != low.ValLoss || e.TestAcc != res.Test {
		t.Errorf("the model left behind has validation loss %.6f, test %.4f; want %.6f, %.4f", e.ValLoss, e.TestAcc, low.ValLoss, res.Test)
	}
	if _, err := train.Fit(task, train.Config{Epochs: 1, LearningRate: 0.01, Select: 2}, nil); err == nil || !strings.Contains(err.Error(), "unknown Selection(2)") {
		t.Errorf("error %v for an unknown selection", err)
	}
}
