package graph_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gnngo/gnn/graph"
)

var sinkCompressed *graph.Compressed

// BenchmarkBuildViews times building the CSR and CSC views of a uniform
// random graph (self-loops and parallel edges allowed) from its COO lists.
// edges/s counts the graph's edges per second for both views together;
// B/edge is the memory the views hold per edge, averaged over the two.
func BenchmarkBuildViews(b *testing.B) {
	for _, c := range []struct {
		n int
		e int
	}{
		{100_000, 10_000_000},
		{1_000_000, 50_000_000},
	} {
		var src, dst []int32 // drawn once, on first use
		b.Run(fmt.Sprintf("n=%d/e=%d", c.n, c.e), func(b *testing.B) {
			if testing.Short() && c.e > 10_000_000 {
				b.Skip("large graph skipped in -short mode")
			}
			if src == nil {
				src, dst = uniformCOO(c.n, c.e, 1)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var held int64
			for range b.N {
				b.StopTimer()
				g, err := graph.FromCOO(c.n, c.n, src, dst)
				if err != nil {
					b.Fatal(err)
				}
				sinkCompressed = nil
				runtime.GC() // free the previous views outside the timer
				b.StartTimer()
				csr, csc := g.CSR(), g.CSC()
				sinkCompressed = csc
				held = viewBytes(csr) + viewBytes(csc)
			}
			b.ReportMetric(float64(c.e)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(held)/float64(2*c.e), "B/edge")
		})
	}
}

// uniformCOO draws e edges uniformly on n nodes from a seeded PCG.
func uniformCOO(n, e int, seed uint64) (src, dst []int32) {
	r := rand.New(rand.NewPCG(seed, seed))
	src = make([]int32, e)
	dst = make([]int32, e)
	for i := range e {
		src[i] = int32(r.IntN(n))
		dst[i] = int32(r.IntN(n))
	}
	return src, dst
}

// viewBytes is the size of a view's slices.
func viewBytes(c *graph.Compressed) int64 {
	return int64(8*cap(c.Indptr) + 4*cap(c.Indices) + 8*cap(c.EIDs))
}

var sinkGraph *graph.Graph

// BenchmarkFromCOO times FromCOO on a uniform random graph: validating (and
// copying) the COO lists. edges/s counts the graph's edges per second.
func BenchmarkFromCOO(b *testing.B) {
	const n, e = 100_000, 10_000_000
	src, dst := uniformCOO(n, e, 1)
	b.ReportAllocs()
	for b.Loop() {
		g, err := graph.FromCOO(n, n, src, dst)
		if err != nil {
			b.Fatal(err)
		}
		sinkGraph = g
	}
	b.ReportMetric(float64(e)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
