package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/internal/testkit/testsets"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// writeParts partitions ds into parts ranks with the pure-Go partitioner
// and writes them under a temporary directory.
func writeParts(t *testing.T, ds *dataset.Dataset, parts int) string {
	t.Helper()
	owner, err := partition.Partition(ds.Graph, parts, 1)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := partition.SplitDataset(ds, owner, parts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "parts")
	if err := partition.Write(dir, ps, partition.Info{Method: "multilevel", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunInProcess trains both models for a few epochs on 3 in-process
// ranks of a generated graph and checks the output.
func TestRunInProcess(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 300, 16
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeParts(t, ds, 3)
	for _, model := range []string{"gcn", "gat"} {
		for _, mode := range []string{"sequential", "one-shot"} {
			o := options{parts: dir, model: model, mode: mode, inproc: 3, epochs: 4, heads: 2, dropout: 0.5, attnDropout: 0.3, weightDecay: 5e-4, seed: 1,
				save: filepath.Join(t.TempDir(), "model.params"), memprofile: filepath.Join(t.TempDir(), "heap")}
			var out bytes.Buffer
			if err := run(&out, &o); err != nil {
				t.Fatalf("%s, %s: %v", model, mode, err)
			}
			if got := regexp.MustCompile(`(?m)^epoch +\d+ +loss `).FindAllString(out.String(), -1); len(got) != 4 {
				t.Errorf("%s, %s: %d epoch lines (only rank 0 prints), want 4:\n%s", model, mode, len(got), out.String())
			}
			if !regexp.MustCompile(`\ntest accuracy: [01]\.\d{4}\n$`).MatchString(out.String()) {
				t.Errorf("%s, %s: output does not end with the test accuracy line:\n%s", model, mode, out.String())
			}
			for _, f := range []string{o.save, o.memprofile + ".0", o.memprofile + ".2"} {
				if st, err := os.Stat(f); err != nil || st.Size() == 0 {
					t.Errorf("%s, %s: %s was not written (%v)", model, mode, f, err)
				}
			}
		}
	}
}

// TestRunErrors checks what the command rejects.
func TestRunErrors(t *testing.T) {
	for _, o := range []options{{}, {parts: "x", model: "gin", mode: "sequential"}, {parts: "x", model: "gcn", mode: "fast"}, {parts: t.TempDir(), model: "gcn", mode: "sequential", inproc: 2}} {
		if err := run(&bytes.Buffer{}, &o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestCoraCurve trains GCN and GAT on Cora in one process and on 4
// in-process ranks, with feature dropout (and attention dropout for GAT),
// and checks that the training losses agree to 1e-5 at every epoch and the
// final accuracies are equal: the ranks draw the masks of one process.
func TestCoraCurve(t *testing.T) {
	ds := testsets.Planetoid(t, "cora")
	dir := writeParts(t, ds, 4)
	for _, model := range []string{"gcn", "gat"} {
		o := options{parts: dir, model: model, mode: "sequential", inproc: 4, epochs: 30, heads: 8, weightDecay: 5e-4, seed: 1, dropout: 0.5, attnDropout: 0.5}
		if err := o.defaults(); err != nil {
			t.Fatal(err)
		}
		want := single(t, ds, &o)
		var got *train.Result
		var mu sync.Mutex
		err := comm.RunInProcess(4, func(c comm.Comm) error {
			r, err := rank(&bytes.Buffer{}, c, &o)
			if c.Rank() == 0 {
				mu.Lock()
				got = r
				mu.Unlock()
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if len(got.History) != len(want.History) {
			t.Fatalf("%s: %d epochs, want %d", model, len(got.History), len(want.History))
		}
		worst := 0.0
		for i, e := range got.History {
			w := want.History[i]
			worst = max(worst, math.Abs(e.Loss-w.Loss))
			if math.Abs(e.Loss-w.Loss) > 1e-5 {
				t.Errorf("%s: epoch %d: loss %.8f on 4 ranks, %.8f in one process", model, e.Epoch, e.Loss, w.Loss)
			}
		}
		last, wlast := got.History[len(got.History)-1], want.History[len(want.History)-1]
		if last.TrainAcc != wlast.TrainAcc || last.ValAcc != wlast.ValAcc || last.TestAcc != wlast.TestAcc || got.Test != want.Test {
			t.Errorf("%s: final accuracies (train, val, test, best test) %v %v %v %v on 4 ranks, %v %v %v %v in one process", model,
				last.TrainAcc, last.ValAcc, last.TestAcc, got.Test, wlast.TrainAcc, wlast.ValAcc, wlast.TestAcc, want.Test)
		}
		t.Logf("%s: largest loss difference %.2g over %d epochs; test accuracy %.4f", model, worst, len(got.History), got.Test)
	}
}

// single trains o's model on the whole of ds in one process.
func single(t *testing.T, ds *dataset.Dataset, o *options) *train.Result {
	t.Helper()
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	task, err := newTask(eg, g, ds.Features, ds.NumClasses, o, func(logits *gorgonia.Node) (*gorgonia.Node, error) {
		return nn.CrossEntropy(logits, ds.Labels, ds.Train)
	})
	if err != nil {
		t.Fatal(err)
	}
	task.Labels, task.Train, task.Val, task.Test = ds.Labels, ds.Train, ds.Val, ds.Test
	res, err := train.Fit(task, train.Config{Epochs: o.epochs, LearningRate: o.lr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
