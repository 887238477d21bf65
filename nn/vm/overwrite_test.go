package vm_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/vm"
)

// TestOverwrite checks that the cross-entropy gradient is written over
// the logits when no node is listed twice, so that the logits and their
// gradient take one buffer, and that the values are the tape's to the bit
// either way (with a node listed twice the gradient needs its own).
func TestOverwrite(t *testing.T) {
	const n, f, c = 12, 5, 7
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, twice := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/twice=%v", dt, twice), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				x := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(n, f), gorgonia.WithName("x"), gorgonia.WithValue(wave(dt, n, f, 0.4)))
				w := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(f, c), gorgonia.WithName("w"), gorgonia.WithValue(wave(dt, f, c, 0.7)))
				logits := gorgonia.Must(gorgonia.Mul(x, w))
				labels := make([]int32, n)
				for i := range labels {
					labels[i] = int32(i % c)
				}
				nodes := []int32{0, 3, 4, 8, 11}
				if twice {
					nodes = append(nodes, 3)
				}
				loss, err := nn.CrossEntropy(logits, labels, nodes)
				if err != nil {
					t.Fatal(err)
				}
				grads, err := gorgonia.Grad(loss, w)
				if err != nil {
					t.Fatal(err)
				}
				roots := gorgonia.Nodes{loss, grads[0]}
				tape := gorgonia.NewTapeMachine(eg.SubgraphRoots(roots...))
				defer nn.CloseVM(tape)
				if err := tape.RunAll(); err != nil {
					t.Fatal(err)
				}
				want := snapshot(roots)
				m, err := vm.New(roots)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				for run := range 2 {
					if err := m.RunAll(); err != nil {
						t.Fatal(err)
					}
					sameBits(t, fmt.Sprintf("run %d", run+1), snapshot(roots), want)
				}
				// The buffers: the logits (n x c) with their gradient over
				// them, and w's gradient (f x c), which the logits'
				// gradient's last reader writes; or, with a node listed
				// twice, the logits' gradient in a buffer of its own, w's
				// gradient then in the logits' one.
				size := int64(dt.Size())
				wantBytes := int64(n*c+f*c) * size
				if twice {
					wantBytes = int64(2*n*c) * size
				}
				if s := m.Stats(); s.BufferBytes != wantBytes {
					t.Errorf("stats %+v: want %d bytes of buffers", s, wantBytes)
				}
			})
		}
	}
}
