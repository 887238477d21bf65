package rgcn_test

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/rgcn"
)

// BenchmarkRelGraphConv times one forward and backward pass of a layer on
// a random graph with 8 relations (RightNorm), 64 features in and out:
// one dense product and one fused weighted sum per relation, no per-edge
// tensor. edges/s counts the graph's edges once per pass.
func BenchmarkRelGraphConv(b *testing.B) {
	const n, m, rels, f = 50_000, 500_000, 8, 64
	r := rand.New(rand.NewPCG(1, 2))
	src, dst, et := make([]int32, m), make([]int32, m), make([]int32, m)
	for e := range src {
		src[e], dst[e], et[e] = int32(r.IntN(n)), int32(r.IntN(n)), int32(r.IntN(rels))
	}
	g, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	norm, err := rgcn.RightNorm(g, et, rels)
	if err != nil {
		b.Fatal(err)
	}
	rel, err := rgcn.Group(g, et, rels, norm)
	if err != nil {
		b.Fatal(err)
	}
	for _, reg := range []struct {
		name string
		opts []rgcn.Option
	}{{"none", nil}, {"basis4", []rgcn.Option{rgcn.WithBasis(4)}}, {"bdd4", []rgcn.Option{rgcn.WithBlockDiagonal(4)}}} {
		b.Run(reg.name, func(b *testing.B) {
			eg := gorgonia.NewGraph()
			l, err := rgcn.New(eg, f, f, rels, reg.opts...)
			if err != nil {
				b.Fatal(err)
			}
			xv := make([]float32, n*f)
			for i := range xv {
				xv[i] = float32(r.NormFloat64())
			}
			x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, f), gorgonia.WithName("x"),
				gorgonia.WithValue(tensor.New(tensor.WithShape(n, f), tensor.WithBacking(xv))))
			y, err := l.Forward(rel, x)
			if err != nil {
				b.Fatal(err)
			}
			cost, err := gorgonia.Sum(y)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := gorgonia.Grad(cost, l.Learnables()...); err != nil {
				b.Fatal(err)
			}
			vm := gorgonia.NewTapeMachine(eg)
			defer vm.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := vm.RunAll(); err != nil {
					b.Fatal(err)
				}
				vm.Reset()
			}
			b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}
