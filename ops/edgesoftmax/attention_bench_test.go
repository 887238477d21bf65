package edgesoftmax

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkAttention measures GAT's fused attention with 8 heads in float32
// on the edge-softmax benchmark graphs (random edge order, and order=dst).
// GB/s counts the bytes a pass must touch: forward, an edge ID, a source ID
// and the output row per edge; backward, an edge ID, a source ID and the y,
// dy and dScore rows per edge; plus the el and er rows and the row
// pointers.
func BenchmarkAttention(b *testing.B) {
	for _, order := range []string{"", "/order=dst"} {
		for _, dir := range []string{"fwd", "bwd"} {
			b.Run(fmt.Sprintf("dir=%s/n=%d/e=%d/heads=%d%s", dir, benchNodes, benchEdges, benchHeads, order), func(b *testing.B) {
				g := uniformGraph()
				if order != "" {
					g = sortedGraph()
				}
				rng := rand.New(rand.NewPCG(3, 3))
				el, er := nodeScores[float32](rng, g, benchHeads)
				ne := g.NumEdges()
				y := make([]float32, ne*benchHeads)
				Attention(y, g, el, er, attnSlope, benchHeads)
				dy := scores[float32](rng, len(y), 1)
				ds := make([]float32, len(y))
				AttentionBackward(ds, g, el, er, attnSlope, y, dy, benchHeads)
				rows := 1
				if dir == "bwd" {
					rows = 3
				}
				perEdge := 8 + 4*benchHeads*rows
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if dir == "fwd" {
						Attention(y, g, el, er, attnSlope, benchHeads)
					} else {
						AttentionBackward(ds, g, el, er, attnSlope, y, dy, benchHeads)
					}
				}
				s := b.Elapsed().Seconds()
				b.ReportMetric(float64(ne)*float64(b.N)/s, "edges/s")
				bytes := float64(ne)*float64(perEdge) + 4*float64(benchHeads)*float64(g.NumSrc()+g.NumDst()) + 8*float64(g.NumDst()+1)
				b.ReportMetric(bytes*float64(b.N)/s/1e9, "GB/s")
				benchSink = y[len(y)-1] + ds[0]
			})
		}
	}
}
