package train_test

import (
	"runtime"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn/train"
)

// epochAllocation trains task for epochs and returns the bytes allocated
// per epoch after the first two, and the live heap after a collection at
// the end.
func epochAllocation(t *testing.T, task *train.Task, epochs int) (perEpoch, live uint64) {
	t.Helper()
	if raceEnabled {
		t.Skip("allocation under the race detector (sync.Pool drops values at random)")
	}
	var ms runtime.MemStats
	var first uint64
	_, err := train.Fit(task, train.Config{Epochs: epochs, LearningRate: 0.01}, func(e train.Epoch) {
		if e.Epoch == 2 || e.Epoch == epochs {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if e.Epoch == 2 {
				first = ms.TotalAlloc
			} else {
				perEpoch, live = (ms.TotalAlloc-first)/uint64(epochs-2), ms.HeapAlloc
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return perEpoch, live
}

// TestEpochAllocation checks that a steady-state epoch of Fit (training
// step and evaluation) allocates little next to the live heap: values are
// reused from one epoch to the next.
func TestEpochAllocation(t *testing.T) {
	ds, g := plantedSelfLoops(t, 2000, 64)
	for _, kind := range []string{"gcn", "gat"} {
		per, live := epochAllocation(t, goldenTask(t, ds, g, kind, tensor.Float32), 12)
		t.Logf("%s: %d bytes allocated per epoch, live heap %d bytes (%.1f%%)", kind, per, live, 100*float64(per)/float64(live))
		// Gorgonia's Adam allocates temporaries every step: the bound
		// leaves room for them.
		if float64(per) > 0.10*float64(live) {
			t.Errorf("%s: an epoch allocates %d bytes, over 10%% of the live heap (%d bytes)", kind, per, live)
		}
	}
}

// TestEpochAllocationCora is TestEpochAllocation on Cora (dense features),
// skipped when the data is absent.
func TestEpochAllocationCora(t *testing.T) {
	dir := findCora()
	if dir == "" || testing.Short() {
		t.Skip("Cora not found under ../shared/data/planetoid (set GNN_PLANETOID_DIR), or -short")
	}
	ds, err := dataset.LoadPlanetoid(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.Features.RowNormalize()
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"gcn", "gat"} {
		per, live := epochAllocation(t, goldenTask(t, ds, g, kind, tensor.Float32), 8)
		t.Logf("cora %s: %d bytes allocated per epoch, live heap %d bytes (%.1f%%)", kind, per, live, 100*float64(per)/float64(live))
		if float64(per) > 0.10*float64(live) {
			t.Errorf("cora %s: an epoch allocates %d bytes, over 10%% of the live heap (%d bytes)", kind, per, live)
		}
	}
}
