package sar

import (
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/nn"
)

// TestGATHandover checks the hand-over of the al and ar gradients from
// the GAT backward to the ops that give them: every run takes what it
// put, so nothing is left after several runs, and the gradients of each
// run are that run's (the same for the same inputs).
func TestGATHandover(t *testing.T) {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3, 0, 1, 2, 3}, []int32{1, 2, 3, 0, 0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := partition.Split(g, []int32{0, 1, 0, 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	err = comm.RunInProcess(2, func(c comm.Comm) error {
		sg, err := New(parts[c.Rank()], c)
		if err != nil {
			return err
		}
		eg := gorgonia.NewGraph()
		z := gorgonia.NewTensor(eg, tensor.Float64, 3, gorgonia.WithShape(2, 2, 3), gorgonia.WithName("z"), gorgonia.WithInit(gorgonia.RangedFrom(1)))
		al := gorgonia.NewTensor(eg, tensor.Float64, 3, gorgonia.WithShape(1, 2, 3), gorgonia.WithName("al"), gorgonia.WithInit(gorgonia.Ones()))
		ar := gorgonia.NewTensor(eg, tensor.Float64, 3, gorgonia.WithShape(1, 2, 3), gorgonia.WithName("ar"), gorgonia.WithInit(gorgonia.RangedFrom(-2)))
		out, err := sg.GATAggregate(z, al, ar, nil, 0.2, nn.DropoutSpec{})
		if err != nil {
			return err
		}
		cost, err := gorgonia.Sum(out)
		if err != nil {
			return err
		}
		grads, err := gorgonia.Grad(cost, z, al, ar)
		if err != nil {
			return err
		}
		op := out.Op().(*opkit.Op).Spec().(*gatOp)
		vm := gorgonia.NewTapeMachine(eg)
		defer vm.Close()
		var first []float64
		for run := range 3 {
			if err := vm.RunAll(); err != nil {
				return err
			}
			if n := op.back.Len(); n != 0 {
				t.Errorf("rank %d run %d: %d runs left in the hand-over", c.Rank(), run, n)
			}
			da := grads[1].Value().Data().([]float64)
			if first == nil {
				first = append(first, da...)
			} else if !slices.Equal(first, da) {
				t.Errorf("rank %d run %d: d al %v, first run %v", c.Rank(), run, da, first)
			}
			vm.Reset()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
