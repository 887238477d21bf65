package vm_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/vm"
)

// TestLayersMatchTape runs a stack of gnn layers whose ops write into
// reused buffers (GATv2's attention, SAGE's max pooling and its
// arg-max gradient, ReLUDropout, GAT's mean of heads, dropout) with their
// gradients, and checks the loss and gradients against the tape
// machine's, to the bit, run after run.
func TestLayersMatchTape(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			const n, f, c = 30, 5, 3
			src, dst := make([]int32, 0, 3*n), make([]int32, 0, 3*n)
			for i := range int32(n) {
				for _, d := range []int32{0, 2, 5} {
					src, dst = append(src, i), append(dst, (i+d)%n)
				}
			}
			g, err := graph.FromCOO(n, n, src, dst)
			if err != nil {
				t.Fatal(err)
			}
			eg := gorgonia.NewGraph()
			mode := nn.NewMode()
			x := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(n, f), gorgonia.WithName("x"), gorgonia.WithValue(wave(dt, n, f, 0.4)))
			l1, err := gatv2.New(eg, f, 4, gatv2.WithHeads(2), gatv2.WithSeed(1), gatv2.WithDtype(dt), gatv2.WithName("v2"),
				gatv2.WithMode(mode), gatv2.WithAttnDropout(0.2))
			if err != nil {
				t.Fatal(err)
			}
			l2, err := sage.New(eg, 8, 6, sage.WithAggregator(sage.Pool), sage.WithSeed(2), sage.WithDtype(dt), sage.WithName("sg"))
			if err != nil {
				t.Fatal(err)
			}
			l3, err := gat.New(eg, 6, c, gat.WithHeads(3), gat.WithMeanHeads(true), gat.WithSeed(3), gat.WithDtype(dt), gat.WithName("ga"),
				gat.WithMode(mode), gat.WithFeatDropout(0.3))
			if err != nil {
				t.Fatal(err)
			}
			h, err := l1.Forward(g, x)
			if err != nil {
				t.Fatal(err)
			}
			if h, err = l2.Forward(g, h); err != nil {
				t.Fatal(err)
			}
			if h, err = nn.ReLUDropout(h, 0.25, 7, mode); err != nil {
				t.Fatal(err)
			}
			logits, err := l3.Forward(g, h)
			if err != nil {
				t.Fatal(err)
			}
			labels, nodes := make([]int32, n), make([]int32, n)
			for i := range labels {
				labels[i], nodes[i] = int32(i%c), int32(i)
			}
			loss, err := nn.CrossEntropy(logits, labels, nodes)
			if err != nil {
				t.Fatal(err)
			}
			params := append(append(l1.Learnables(), l2.Learnables()...), l3.Learnables()...)
			grads, err := gorgonia.Grad(loss, params...)
			if err != nil {
				t.Fatal(err)
			}
			roots := append(gorgonia.Nodes{loss}, grads...)
			tape := gorgonia.NewTapeMachine(eg.SubgraphRoots(roots...))
			defer nn.CloseVM(tape)
			m, err := vm.New(roots)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for run := range 3 {
				mode.Next()
				tape.Reset()
				if err := tape.RunAll(); err != nil {
					t.Fatal(err)
				}
				want := snapshot(roots)
				if err := m.RunAll(); err != nil {
					t.Fatal(err)
				}
				sameBits(t, fmt.Sprintf("run %d", run+1), snapshot(roots), want)
			}
		})
	}
}
