package generate

import (
	"fmt"
	"testing"

	"github.com/gnngo/gnn/graph"
)

var sink *graph.Graph

// BenchmarkUniform measures generation including FromCOO's validation; the
// largest size is the scale of the kernel benchmarks' big graphs.
func BenchmarkUniform(b *testing.B) {
	for _, size := range []struct {
		n     int
		edges int64
	}{{100_000, 1_000_000}, {1_000_000, 50_000_000}} {
		b.Run(fmt.Sprintf("n=%d/e=%d", size.n, size.edges), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g, err := Uniform(size.n, size.edges, 1)
				if err != nil {
					b.Fatal(err)
				}
				sink = g
			}
			b.ReportMetric(float64(size.edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}

func BenchmarkRMAT(b *testing.B) {
	for _, scale := range []int{16, 20} {
		edges := int64(16) << scale
		b.Run(fmt.Sprintf("scale=%d/e=%d", scale, edges), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g, err := RMAT(scale, edges, 0.57, 0.19, 0.19, 1)
				if err != nil {
					b.Fatal(err)
				}
				sink = g
			}
			b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		})
	}
}
