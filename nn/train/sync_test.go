package train_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/train"
)

// scaleSync is a train.Sync of one rank that multiplies the loss and the
// gradients it is given by scale (a power of two, so exactly), as a job
// of scale identical ranks would sum them.
type scaleSync struct {
	scale float64
	grads int // gradients scaled so far
}

func (s *scaleSync) Params(params gorgonia.Nodes) error { return nil }

func (s *scaleSync) Grads(params gorgonia.Nodes) error {
	for _, p := range params {
		g, err := p.Grad()
		if err != nil {
			return fmt.Errorf("gradient of %q: %w", p.Name(), err)
		}
		d, ok := g.(*tensor.Dense)
		if !ok {
			return fmt.Errorf("gradient of %q is %T", p.Name(), g)
		}
		switch x := d.Data().(type) {
		case []float32:
			for i := range x {
				x[i] *= float32(s.scale)
			}
		case []float64:
			for i := range x {
				x[i] *= s.scale
			}
		}
		s.grads++
	}
	return nil
}

func (s *scaleSync) Sum(v []float64) error {
	if len(v) == 1 { // the loss; the metrics are counted once
		v[0] *= s.scale
	}
	return nil
}

// withoutValLoss drops the validation loss from trace lines: a
// data-parallel rank sums it as loss times count over count, which may
// differ from the loss in the last bit.
func withoutValLoss(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 6 {
			f = append(f[:2], f[3:]...)
		}
		out[i] = strings.Join(f, " ")
	}
	return out
}

// TestSyncLossTraceGolden trains the golden models as one rank of a
// data-parallel job (Config.Sync): losses, accuracies and weights are
// those of the committed trace to the bit, at GOMAXPROCS 1 and 3.
func TestSyncLossTraceGolden(t *testing.T) {
	ds, g := plantedSelfLoops(t, 500, 24)
	want := readGolden(t, filepath.Join("testdata", "losses.golden"))
	for _, procs := range []int{1, 3} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, m := range goldenModels {
				s := &scaleSync{scale: 1}
				got := withoutValLoss(traceConfig(t, goldenTask(t, ds, g, m.model, m.dt), train.Config{Epochs: 10, LearningRate: 0.01, Sync: s}))
				w := withoutValLoss(want["planted/"+m.name])
				if len(got) != len(w) {
					t.Fatalf("%s: %d lines, the golden trace has %d", m.name, len(got), len(w))
				}
				for i := range w {
					if got[i] != w[i] {
						t.Errorf("%s: line %d is %q, the golden trace has %q", m.name, i+1, got[i], w[i])
					}
				}
				if s.grads == 0 {
					t.Errorf("%s: Sync.Grads saw no gradient", m.name)
				}
			}
		})
	}
}

// TestSyncGradientsReachSolver checks that what Sync.Grads leaves in the
// parameters' gradients is what the optimiser steps with: a Sync that
// doubles them trains as one process does on twice the loss, to the bit.
func TestSyncGradientsReachSolver(t *testing.T) {
	ds, g := plantedSelfLoops(t, 300, 16)
	for _, m := range goldenModels {
		task := goldenTask(t, ds, g, m.model, m.dt)
		got := withoutValLoss(traceConfig(t, task, train.Config{Epochs: 6, LearningRate: 0.01, Sync: &scaleSync{scale: 2}}))
		// Parameters that carry dual values, bound by a tape machine run
		// before, train the same.
		dual := goldenTask(t, ds, g, m.model, m.dt)
		var params gorgonia.Nodes
		for _, gr := range dual.Groups {
			params = append(params, gr.Params...)
		}
		if _, err := gorgonia.Grad(dual.Loss, params...); err != nil {
			t.Fatal(err)
		}
		tape := gorgonia.NewTapeMachine(dual.Loss.Graph(), gorgonia.BindDualValues(params...))
		if err := tape.RunAll(); err != nil {
			t.Fatal(err)
		}
		tape.Close()
		gotDual := withoutValLoss(traceConfig(t, dual, train.Config{Epochs: 6, LearningRate: 0.01, Sync: &scaleSync{scale: 2}}))

		ref := goldenTask(t, ds, g, m.model, m.dt)
		two := gorgonia.NewConstant(2.0)
		if m.dt == tensor.Float32 {
			two = gorgonia.NewConstant(float32(2))
		}
		var err error
		if ref.Loss, err = gorgonia.Mul(ref.Loss, two); err != nil {
			t.Fatal(err)
		}
		want := withoutValLoss(trace(t, ref, 6))
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: line %d is %q with gradients doubled by Sync, %q with the loss doubled", m.name, i+1, got[i], want[i])
			}
			if gotDual[i] != want[i] {
				t.Errorf("%s, dual values bound: line %d is %q with gradients doubled by Sync, %q with the loss doubled", m.name, i+1, gotDual[i], want[i])
			}
		}
	}
}
