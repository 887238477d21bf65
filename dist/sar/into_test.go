package sar

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/vm"
)

// TestGATIntoMachine runs GATAggregate and its gradients on an nn/vm
// machine, which hands the ops buffers reused from run to run
// (opkit.Into), and checks every run against Gorgonia's tape to the bit,
// in float32 and float64, with attention dropout; with only the gradient
// of al asked for, ar's is computed and never taken, and the later runs
// neither fail nor pile such gradients up (Handover.Begin).
func TestGATIntoMachine(t *testing.T) {
	g, err := graph.FromCOO(6, 6, []int32{0, 1, 2, 3, 4, 5, 0, 2, 4, 1}, []int32{1, 2, 3, 4, 5, 0, 3, 5, 1, 4})
	if err != nil {
		t.Fatal(err)
	}
	g, err = g.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	parts, err := partition.Split(g, []int32{0, 1, 0, 1, 1, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, onlyAl := range []bool{false, true} {
			name := fmt.Sprintf("%v/onlyAl=%v", dt, onlyAl)
			err := comm.RunInProcess(2, func(c comm.Comm) error {
				sg, err := New(parts[c.Rank()], c)
				if err != nil {
					return err
				}
				eg := gorgonia.NewGraph()
				n := parts[c.Rank()].NumNodes()
				in := func(name string, shape ...int) *gorgonia.Node {
					return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(filled(dt, tensor.Shape(shape).TotalSize(), c.Rank(), shape)))
				}
				z, al, ar := in("z", n, 2, 3), in("al", 1, 2, 3), in("ar", 1, 2, 3)
				mode := nn.NewMode()
				out, err := sg.GATAggregate(z, al, ar, nil, 0.2, nn.DropoutSpec{P: 0.3, Seed: 7, Mode: mode})
				if err != nil {
					return err
				}
				sq, err := gorgonia.Square(out)
				if err != nil {
					return err
				}
				cost, err := gorgonia.Sum(sq)
				if err != nil {
					return err
				}
				grads, err := gorgonia.Grad(cost, z, al, ar)
				if err != nil {
					return err
				}
				roots := append(gorgonia.Nodes{out}, grads...)
				if onlyAl {
					roots = roots[:3]
				}
				op := out.Op().(*opkit.Op).Spec().(*gatOp)
				tape := gorgonia.NewTapeMachine(eg)
				defer tape.Close()
				m, err := vm.New(roots)
				if err != nil {
					return err
				}
				defer m.Close()
				left := 0
				for run := range 5 {
					if err := tape.RunAll(); err != nil {
						return err
					}
					var want []string
					for _, r := range roots {
						want = append(want, fmt.Sprint(r.Value().Data()))
					}
					tape.Reset()
					if err := m.RunAll(); err != nil {
						return fmt.Errorf("run %d: %w", run, err)
					}
					for i, r := range roots {
						if got := fmt.Sprint(r.Value().Data()); got != want[i] {
							t.Errorf("%s rank %d run %d: %v is %v on the machine, %v on the tape", name, c.Rank(), run, r, got, want[i])
						}
					}
					// Untaken gradients stay only under keys the machine
					// reuses: their number does not grow.
					n := op.back.Len()
					if !onlyAl && n != 0 || onlyAl && (n > 2 || run > 1 && n > left) {
						t.Errorf("%s rank %d run %d: %d runs left in the hand-over", name, c.Rank(), run, n)
					}
					left = n
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
}

// filled returns a tensor of shape whose elements cycle through [-1, 1),
// differently on each rank.
func filled(dt tensor.Dtype, size, rank int, shape []int) tensor.Tensor {
	x := make([]float64, size)
	for i := range x {
		x[i] = float64((i*7+rank*3)%11)/5 - 1
	}
	if dt == tensor.Float64 {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(x))
	}
	y := make([]float32, size)
	for i, v := range x {
		y[i] = float32(v)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(y))
}
