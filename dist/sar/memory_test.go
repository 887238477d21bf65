package sar_test

import (
	"runtime"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
)

// TestNoEdgeFeatureTensors runs a GAT aggregation (forward and backward)
// and a normalised sum on 2 ranks of a graph with 160 edges per node and
// checks that each rank allocates far less than one E x F tensor: messages
// are never materialised, only one number per edge and head.
func TestNoEdgeFeatureTensors(t *testing.T) {
	const n, e, heads, feat = 256, 256 * 160, 4, 16
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := partition.Split(g, owners(g, 2, 3, false), 2)
	if err != nil {
		t.Fatal(err)
	}
	edgeFeature := float64(e * heads * feat * 8)
	for _, mode := range []sar.Mode{sar.Sequential, sar.OneShot} {
		allocs := make([]float64, 2)
		err = comm.RunInProcess(2, func(c comm.Comm) error {
			sg, err := sar.New(parts[c.Rank()], c, sar.WithMode(mode))
			if err != nil {
				return err
			}
			eg := gorgonia.NewGraph()
			m := sg.NumSrc()
			z := gradcheck.Input(eg, tensor.Float64, "z", []int{m, heads, feat}, make([]float64, m*heads*feat))
			al := gradcheck.Input(eg, tensor.Float64, "al", []int{1, heads, feat}, make([]float64, heads*feat))
			ar := gradcheck.Input(eg, tensor.Float64, "ar", []int{1, heads, feat}, make([]float64, heads*feat))
			out, err := sg.GATAggregate(z, al, ar, nil, 0.2, nn.DropoutSpec{})
			if err != nil {
				return err
			}
			if out, err = sg.NormalizedSum(out, -0.5, -0.5); err != nil {
				return err
			}
			cost, err := gorgonia.Sum(out)
			if err != nil {
				return err
			}
			if _, err := gorgonia.Grad(cost, z, al, ar); err != nil {
				return err
			}
			vm := gorgonia.NewTapeMachine(eg)
			defer vm.Close()
			if err := vm.RunAll(); err != nil { // warm up
				return err
			}
			vm.Reset()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := vm.RunAll(); err != nil {
				return err
			}
			runtime.ReadMemStats(&after)
			allocs[c.Rank()] = float64(after.TotalAlloc - before.TotalAlloc)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Both ranks allocate at once, so each measure counts both: one
		// E x F tensor of messages on each rank would add edgeFeature.
		if max(allocs[0], allocs[1]) > edgeFeature/2 {
			t.Errorf("%v: the ranks allocated %.0f and %.0f bytes for a forward and backward; one E x F tensor is %.0f", mode, allocs[0], allocs[1], edgeFeature)
		}
		t.Logf("%v: %.2f MB allocated (one E x F tensor: %.2f MB)", mode, allocs[0]/1e6, edgeFeature/1e6)
	}
}

// TestFailingRankReleasesOthers has one rank fail before the aggregation
// the others enter: they must get an error, not wait forever.
func TestFailingRankReleasesOthers(t *testing.T) {
	// It used to hang about one run in ten: the ranks whose aggregation
	// failed called comm.Abort inside the op, which ended the TapeMachine's
	// worker goroutine and left RunAll waiting (pass.run now returns the
	// error instead).
	g := rmatGraph(t)
	parts, err := partition.Split(g, owners(g, 3, 1, false), 3)
	if err != nil {
		t.Fatal(err)
	}
	p := newProblem(g, 6, 3, 1)
	err = comm.RunInProcess(3, func(c comm.Comm) error {
		sg, err := sar.New(parts[c.Rank()], c)
		if err != nil {
			return err
		}
		if c.Rank() == 1 {
			return errFailed
		}
		_, err = p.evaluate(sg, parts[c.Rank()].Nodes, gcnModel(0, 6, 8, 3), tensor.Float64)
		return err
	})
	if err == nil {
		t.Fatal("no error")
	}
}

var errFailed = errorString("rank 1 failed on purpose")

type errorString string

func (e errorString) Error() string { return string(e) }
