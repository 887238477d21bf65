//go:build gnncuda

package train_test

import (
	"math"
	"os"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/internal/testkit/devicetest"
	"github.com/gnngo/gnn/internal/testkit/testsets"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/train"
)

// deviceCora loads Cora ($GNN_CORA when set, else where testsets finds
// it) with row-normalised features, or skips the test.
func deviceCora(t *testing.T) *dataset.Dataset {
	t.Helper()
	dir := os.Getenv("GNN_CORA") // a test binary carried to a GPU machine
	if dir == "" {
		dir = testsets.PlanetoidDir(t, "cora")
	}
	ds, err := dataset.LoadPlanetoid(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.Features.RowNormalize()
	return ds
}

// deviceModel builds the GCN or GAT of the examples on Cora (dense features).
func deviceModel(t *testing.T, ds *dataset.Dataset, kind string) (*train.Task, *gorgonia.Node) {
	t.Helper()
	g, err := ds.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	f := ds.Features
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("features"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))))
	var logits *gorgonia.Node
	var groups []train.Group
	switch kind {
	case "gcn":
		l1, err := gcn.New(eg, f.Cols, 16, gcn.WithName("gcn1"), gcn.WithSeed(1), gcn.WithActivation(nn.ReLU))
		if err != nil {
			t.Fatal(err)
		}
		l2, err := gcn.New(eg, 16, ds.NumClasses, gcn.WithName("gcn2"), gcn.WithSeed(2))
		if err != nil {
			t.Fatal(err)
		}
		h, err := nn.Dropout(x, 0.5, 3, mode)
		if err == nil {
			h, err = l1.Forward(g, h)
		}
		if err == nil {
			h, err = nn.Dropout(h, 0.5, 4, mode)
		}
		if err == nil {
			logits, err = l2.Forward(g, h)
		}
		if err != nil {
			t.Fatal(err)
		}
		groups = []train.Group{{Params: l1.Learnables(), WeightDecay: 5e-4}, {Params: l2.Learnables()}}
	case "gat":
		l1, err := gat.New(eg, f.Cols, 8, gat.WithName("gat1"), gat.WithHeads(8), gat.WithMode(mode),
			gat.WithFeatDropout(0.6), gat.WithAttnDropout(0.6), gat.WithActivation(nn.ELU), gat.WithSeed(1))
		if err != nil {
			t.Fatal(err)
		}
		l2, err := gat.New(eg, 64, ds.NumClasses, gat.WithName("gat2"), gat.WithHeads(1), gat.WithMode(mode),
			gat.WithFeatDropout(0.6), gat.WithAttnDropout(0.6), gat.WithMeanHeads(true), gat.WithSeed(11))
		if err != nil {
			t.Fatal(err)
		}
		h, err := l1.Forward(g, x)
		if err == nil {
			logits, err = l2.Forward(g, h)
		}
		if err != nil {
			t.Fatal(err)
		}
		groups = []train.Group{{Params: append(l1.Learnables(), l2.Learnables()...), WeightDecay: 5e-4}}
	}
	loss, err := nn.CrossEntropy(logits, ds.Labels, ds.Train)
	if err != nil {
		t.Fatal(err)
	}
	return &train.Task{Logits: logits, Loss: loss, Mode: mode, Groups: groups,
		Labels: ds.Labels, Train: ds.Train, Val: ds.Val, Test: ds.Test}, x
}

// TestDeviceFitCora trains GCN and GAT on Cora for a few epochs on the CPU and on
// the device, with the same user code but for placing the features (and,
// in the second variant, the parameters), and compares the losses and
// accuracies of every epoch; it reports the bytes that crossed per epoch.
// With the parameters on the device only a few scalars may cross.
func TestDeviceFitCora(t *testing.T) {
	ds := deviceCora(t)
	epochs := 3
	for _, kind := range []string{"gcn", "gat"} {
		t.Run(kind, func(t *testing.T) {
			cfg := train.Config{Epochs: epochs, LearningRate: 0.01}
			task, _ := deviceModel(t, ds, kind)
			want, err := train.Fit(task, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, params := range []string{"host", "device"} {
				t.Run("params="+params, func(t *testing.T) {
					devicetest.ForDevices(t, func(t *testing.T, dev *gpu.Device) {
						fitOnDevice(t, dev, ds, kind, params == "device", cfg, want)
					})
				})
			}
		})
	}
}

// fitOnDevice trains on dev and compares the run with want.
func fitOnDevice(t *testing.T, dev *gpu.Device, ds *dataset.Dataset, kind string, params bool, cfg train.Config, want *train.Result) {
	task, x := deviceModel(t, ds, kind)
	place := gorgonia.Nodes{x}
	if params {
		for _, g := range task.Groups {
			place = append(place, g.Params...)
		}
	}
	for _, n := range place {
		if err := dev.PlaceNode(n); err != nil {
			t.Fatal(err)
		}
	}
	var per []gpu.Stats
	last := dev.Stats()
	got, err := train.Fit(task, cfg, func(train.Epoch) {
		s := dev.Stats()
		per = append(per, s.Sub(last))
		last = s
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.History {
		w, g := want.History[i], got.History[i]
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"loss", g.Loss, w.Loss}, {"val loss", g.ValLoss, w.ValLoss}, {"train acc", g.TrainAcc, w.TrainAcc}, {"val acc", g.ValAcc, w.ValAcc}, {"test acc", g.TestAcc, w.TestAcc}} {
			if math.Abs(c.got-c.want) > 1e-4*max(1, math.Abs(c.want)) {
				t.Errorf("epoch %d: %s %v on the device, %v on the CPU", i+1, c.what, c.got, c.want)
			}
		}
	}
	for i, s := range per {
		t.Logf("epoch %d: %v", i+1, s)
	}
	if last := per[len(per)-1]; params && (last.HostToDevice != 0 || last.DeviceToHost > 64) {
		t.Errorf("parameters on the device, but an epoch copied %v", last)
	}
}
