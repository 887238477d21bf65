package ops_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// BenchmarkGATv2Scores times a training step (forward and backward) of
// GATv2's attention logits: the fused op, and the composition DGL's
// GATv2Conv runs (u_add_v into an E x H x F tensor, LeakyReLU, product with
// a, sum over features). B/op shows the E x H x F tensors the fused op
// does not make. Names are benchstat-friendly; edges/s counts edges scored
// per second.
func BenchmarkGATv2Scores(b *testing.B) {
	const n, e, h, f = 20_000, 200_000, 8, 8
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		b.Fatal(err)
	}
	g.CSR()
	g.CSC()
	for _, impl := range []string{"fused", "composed"} {
		b.Run(fmt.Sprintf("impl=%s/n=%d/e=%d/heads=%d/dim=%d", impl, n, e, h, f), func(b *testing.B) {
			eg := gorgonia.NewGraph()
			c := gatv2Case{h: h, f: f}
			for _, s := range c.shapes(g) {
				v := make([]float64, size(s))
				for i := range v {
					v[i] = float64(i%7) - 3
				}
				c.vals = append(c.vals, v)
			}
			var out *gorgonia.Node
			var in gorgonia.Nodes
			if impl == "fused" {
				out, in, err = c.build(eg, g, tensor.Float32, 0.2)
			} else {
				out, in, err = composedGATv2(eg, g, c)
			}
			if err != nil {
				b.Fatal(err)
			}
			cost, err := gorgonia.Sum(out)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := gorgonia.Grad(cost, in...); err != nil {
				b.Fatal(err)
			}
			vm := gorgonia.NewTapeMachine(eg)
			defer vm.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				vm.Reset()
				if err := vm.RunAll(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}

// composedGATv2 builds DGL's formulation of the scores from c's values in
// float32.
func composedGATv2(eg *gorgonia.ExprGraph, g *graph.Graph, c gatv2Case) (*gorgonia.Node, gorgonia.Nodes, error) {
	var in gorgonia.Nodes
	for i, s := range c.shapes(g) {
		in = append(in, gradcheck.Input(eg, tensor.Float32, fmt.Sprintf("in%d", i), s, c.vals[i]))
	}
	s, err := ops.UAddV(g, in[0], in[1])
	if err != nil {
		return nil, nil, err
	}
	if s, err = gorgonia.LeakyRelu(s, 0.2); err != nil {
		return nil, nil, err
	}
	a, err := gorgonia.Reshape(in[2], tensor.Shape{c.h, c.f})
	if err != nil {
		return nil, nil, err
	}
	if s, err = gorgonia.BroadcastHadamardProd(s, a, nil, []byte{0}); err != nil {
		return nil, nil, err
	}
	if s, err = gorgonia.Sum(s, 2); err != nil {
		return nil, nil, err
	}
	s, err = gorgonia.Reshape(s, tensor.Shape{g.NumEdges(), c.h, 1})
	return s, in, err
}
