package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/nn/vm"
)

// BenchmarkEpoch times one training step of the default model (5 layers,
// hidden 32, dropout 0.5, sum readout) as train.Fit runs it: the forward
// and backward pass of an nn/vm Machine over the loss and the gradients,
// and the Adam step. The TU datasets are skipped when absent.
func BenchmarkEpoch(b *testing.B) {
	for _, name := range []string{"MUTAG", "PROTEINS"} {
		b.Run("data="+name, func(b *testing.B) {
			dir := filepath.Join(tuDir(), name)
			if _, err := os.Stat(filepath.Join(dir, name+"_A.txt")); err != nil {
				b.Skipf("no %s under ../shared/data/tu (set GNN_TU_DIR)", name)
			}
			o := quick(0, 1)
			o.Hidden, o.Data, o.Name = 32, dir, name
			task, _, _, err := build(io.Discard, &o)
			if err != nil {
				b.Fatal(err)
			}
			step, closeVM := trainStep(b, task, o.LR)
			defer closeVM()
			step() // the first epoch: lazy set-up, the heap growing
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				step()
			}
			b.ReportMetric(float64(len(task.Train))*float64(b.N)/b.Elapsed().Seconds(), "graphs/s")
		})
	}
}

// trainStep compiles task as train.Fit does and returns one epoch.
func trainStep(b *testing.B, task *train.Task, lr float64) (step func(), closeVM func()) {
	params := task.Groups[0].Params
	grads, err := gorgonia.Grad(task.Loss, params...)
	if err != nil {
		b.Fatal(err)
	}
	m, err := vm.New(append(gorgonia.Nodes{task.Loss}, grads...))
	if err != nil {
		b.Fatal(err)
	}
	adam, err := train.NewAdam(lr, 0)
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		task.Mode.Train()
		task.Mode.Next()
		if err := m.RunAll(); err != nil {
			b.Fatal(err)
		}
		model, err := m.ValueGrads(params, grads)
		if err != nil {
			b.Fatal(err)
		}
		if err := adam.Step(model); err != nil {
			b.Fatal(err)
		}
	}, func() { m.Close() }
}
