package sddmm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

// BenchmarkGATv2Mask times GradAll's pass over the sources alone (maskRows
// over the CSR view, on one goroutine) on uniform random graphs numbered by
// destination, from the records of the pass over the destinations, for 8
// heads of 8 and of 2 features: the kernel of the records, without the
// pass that writes them. A few thousand edges' records fit in the L2
// cache, 200,000 do not.
func BenchmarkGATv2Mask(b *testing.B) {
	for _, ne := range [][2]int{{2_000, 20_000}, {20_000, 200_000}} {
		n, e := ne[0], ne[1]
		random, err := generate.Uniform(n, int64(e), 1)
		if err != nil {
			b.Fatal(err)
		}
		g, _, err := random.ReorderEdges(graph.ByDst)
		if err != nil {
			b.Fatal(err)
		}
		for _, hf := range [][2]int{{8, 8}, {8, 2}} {
			h, f := hf[0], hf[1]
			w := h * f
			b.Run(fmt.Sprintf("n=%d/e=%d/heads=%d/dim=%d", n, e, h, f), func(b *testing.B) {
				k, ds := newGATv2[float32](rand.New(rand.NewPCG(1, 2)), g, h, f, 0, 0.2, false)
				rec := make([]float32, e*recordLen[float32](h, w))
				k.gradDst(make([]float32, n*w), nil, nil, nil, ds, rec)
				dzl := make([]float32, n*w)
				c := g.CSR()
				b.ReportAllocs()
				for b.Loop() {
					k.maskRows(dzl, rec, c, 0, n)
				}
				b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
				benchSink += dzl[0]
			})
		}
	}
}
