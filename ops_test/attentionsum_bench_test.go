package ops_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn/vm"
)

// BenchmarkGATAttentionSum times a training step (forward and backward,
// on an nn/vm Machine) of GAT's attention and aggregation with 8 heads of
// 8 features in float32: mode=keep is GATAttention then UMulESum (the
// attention kept per edge), mode=recompute GATAttentionSum, on a uniform
// graph with its edges in random order and numbered by destination. B/op
// shows what a step allocates; edges/s counts edges per second.
func BenchmarkGATAttentionSum(b *testing.B) {
	const n, e, h, f = 20_000, 200_000, 8, 8
	for _, order := range []string{"random", "dst"} {
		g, err := generate.Uniform(n, e, 1)
		if err != nil {
			b.Fatal(err)
		}
		if order == "dst" {
			c := g.CSC()
			dst := make([]int32, len(c.Indices))
			for v := range c.NumRows() {
				lo, hi := c.Row(v)
				for p := lo; p < hi; p++ {
					dst[p] = int32(v)
				}
			}
			if g, err = graph.FromCOO(n, n, append([]int32{}, c.Indices...), dst); err != nil {
				b.Fatal(err)
			}
		}
		g.CSR()
		g.CSC()
		spec := attnSumSpec(h, f)
		vals := make([][]float64, len(spec))
		for i, s := range spec {
			v := make([]float64, size(shapeOf(gradcheck.Rows(g, s.at), s.shape)))
			for j := range v {
				v[j] = float64(j%7-3) / 4
			}
			vals[i] = v
		}
		for _, mode := range []string{"keep", "recompute"} {
			b.Run(fmt.Sprintf("mode=%s/order=%s/n=%d/e=%d/heads=%d/dim=%d", mode, order, n, e, h, f), func(b *testing.B) {
				eg := gorgonia.NewGraph()
				in := inputs(eg, g, tensor.Float32, spec, vals)
				build := attnSumKept(0.2)
				if mode == "recompute" {
					build = attnSumFused(0.2)
				}
				out, err := build(g, in)
				if err != nil {
					b.Fatal(err)
				}
				cost, err := gorgonia.Sum(out)
				if err != nil {
					b.Fatal(err)
				}
				grads, err := gorgonia.Grad(cost, in...)
				if err != nil {
					b.Fatal(err)
				}
				m, err := vm.New(grads)
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := m.RunAll(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			})
		}
	}
}
