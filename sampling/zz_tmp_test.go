package sampling_test

import (
	"testing"
	"time"
	"math/rand/v2"
	"github.com/gnngo/gnn/sampling"
)

func BenchmarkZZParts(b *testing.B) {
	g := productsSized(b)
	perm := rand.New(rand.NewPCG(1, 2)).Perm(g.NumNodes())
	seeds := make([]int32, 70000)
	for j := range seeds { seeds[j] = int32(perm[j]) }
	var ts, tb time.Duration
	var e int
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		f, _ := sampling.SampleNeighbors(g, seeds, 15, sampling.Options{}, uint64(i))
		t1 := time.Now()
		sampling.ToBlock(f)
		tb += time.Since(t1); ts += t1.Sub(t0); e += f.NumEdges()
	}
	b.ReportMetric(float64(e)/ts.Seconds(), "sample-edges/s")
	b.ReportMetric(float64(e)/tb.Seconds(), "block-edges/s")
}
