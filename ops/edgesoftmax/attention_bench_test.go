package edgesoftmax

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkAttention measures GAT's fused attention with 8 heads (and 1,
// the usual output layer, and 2 and 4, the narrow kernels) in float32
// on the edge-softmax benchmark graphs (random edge order, on the streaming
// path and with impl=groups on the group kernels, and order=dst).
// GB/s counts the bytes a pass must touch: forward, an edge ID, a source ID
// and the output row per edge; backward, an edge ID, a source ID and the y,
// dy and dScore rows per edge; plus the el and er rows and the row
// pointers.
func BenchmarkAttention(b *testing.B) {
	for _, c := range []struct {
		heads int
		order string
	}{{benchHeads, ""}, {benchHeads, "/impl=groups"}, {benchHeads, "/order=dst"}, {1, "/order=dst"},
		{4, ""}, {4, "/order=dst"}, {2, ""}, {2, "/order=dst"}} {
		for _, dir := range []string{"fwd", "bwd"} {
			heads, order := c.heads, c.order
			b.Run(fmt.Sprintf("dir=%s/n=%d/e=%d/heads=%d%s", dir, benchNodes, benchEdges, heads, order), func(b *testing.B) {
				g := uniformGraph()
				switch order {
				case "/order=dst":
					g = sortedGraph()
				case "/impl=groups":
					defer func(s bool) { useStream = s }(useStream)
					useStream = false
				}
				rng := rand.New(rand.NewPCG(3, 3))
				el, er := nodeScores[float32](rng, g, heads)
				ne := g.NumEdges()
				y := make([]float32, ne*heads)
				Attention(y, g, el, er, attnSlope, heads)
				dy := scores[float32](rng, len(y), 1)
				ds := make([]float32, len(y))
				AttentionBackward(ds, g, el, er, attnSlope, y, dy, heads)
				rows := 1
				if dir == "bwd" {
					rows = 3
				}
				perEdge := 8 + 4*heads*rows
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for b.Loop() {
					if dir == "fwd" {
						Attention(y, g, el, er, attnSlope, heads)
					} else {
						AttentionBackward(ds, g, el, er, attnSlope, y, dy, heads)
					}
				}
				reportCPU(b, cpu0)
				s := b.Elapsed().Seconds()
				b.ReportMetric(float64(ne)*float64(b.N)/s, "edges/s")
				bytes := float64(ne)*float64(perEdge) + 4*float64(heads)*float64(g.NumSrc()+g.NumDst()) + 8*float64(g.NumDst()+1)
				b.ReportMetric(bytes*float64(b.N)/s/1e9, "GB/s")
				benchSink = y[len(y)-1] + ds[0]
			})
		}
	}
}
