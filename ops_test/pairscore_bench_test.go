package ops_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// BenchmarkPairScore times a training step (forward and backward, both
// operands one embedding node) of the link-prediction pair scorers over a
// pair graph of 200,000 pairs of 20,000 nodes: u_dot_v, u_cos_v, distmult
// (4 relations) and distmult1 (one relation: the SDDMM/SpMM path). pairs/s counts pairs scored per second; B/op
// shows that no E x F tensor (51 MB here) is made.
func BenchmarkPairScore(b *testing.B) {
	const n, e, f, nrel = 20_000, 200_000, 64, 4
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		b.Fatal(err)
	}
	g.CSR()
	g.CSC()
	rel := make([]int32, e)
	for i := range rel {
		rel[i] = int32(i % nrel)
	}
	hv, wv := make([]float64, n*f), make([]float64, nrel*f)
	for i := range hv {
		hv[i] = float64(i%7)/7 - 0.4
	}
	for i := range wv {
		wv[i] = float64(i%5)/5 - 0.3
	}
	one := make([]int32, e)
	for _, op := range []string{"u_dot_v", "u_cos_v", "distmult", "distmult1"} {
		b.Run(fmt.Sprintf("op=%s/n=%d/e=%d/dim=%d", op, n, e, f), func(b *testing.B) {
			eg := gorgonia.NewGraph()
			h := gradcheck.Input(eg, tensor.Float32, "h", []int{n, f}, hv)
			w := gradcheck.Input(eg, tensor.Float32, "w", []int{nrel, f}, wv)
			wrt := gorgonia.Nodes{h}
			var s *gorgonia.Node
			switch op {
			case "u_dot_v":
				s, err = ops.UDotV(g, h, h)
			case "u_cos_v":
				s, err = ops.UCosV(g, h, h, 1e-8)
			case "distmult":
				s, err = ops.DistMult(g, h, w, h, rel)
				wrt = append(wrt, w)
			default: // one relation
				w1 := gradcheck.Input(eg, tensor.Float32, "w1", []int{1, f}, wv[:f])
				s, err = ops.DistMult(g, h, w1, h, one)
				wrt = append(wrt, w1)
			}
			if err != nil {
				b.Fatal(err)
			}
			cost, err := gorgonia.Sum(s)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := gorgonia.Grad(cost, wrt...); err != nil {
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
			b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
