package link

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/metrics"
)

// rankInput draws n x dim embeddings, p positives and k negatives each.
func rankInput(n, dim, p, k int, seed uint64) (h []float32, posSrc, posDst, negDst []int32) {
	rng := rand.New(rand.NewPCG(seed, 1))
	h = make([]float32, n*dim)
	for i := range h {
		h[i] = float32(rng.NormFloat64())
	}
	posSrc, posDst, negDst = make([]int32, p), make([]int32, p), make([]int32, p*k)
	for i := range posSrc {
		posSrc[i], posDst[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
	}
	for i := range negDst {
		negDst[i] = int32(rng.IntN(n))
	}
	return
}

// BenchmarkRankDot measures OGB-style ranking of p positives against k
// negatives each, dot-product scores of dim-wide float32 embeddings of n
// nodes: pairs/s counts the p*(k+1) scores, and cpu-ns/pair is the CPU
// time per score over all threads (on a shared machine, less inflated by
// other work than the wall time). The last cases are the
// target, 100,000 positives against 1,000 negatives each (400 MB of
// negative IDs).
func BenchmarkRankDot(b *testing.B) {
	for _, c := range []struct{ n, p, k, dim int }{
		{1000, 2000, 1000, 64},
		{100_000, 2000, 1000, 64},
		{1_000_000, 2000, 1000, 64},
		{100_000, 100_000, 1000, 64},
		{1_000_000, 100_000, 1000, 64},
	} {
		b.Run(fmt.Sprintf("n=%d/pos=%d/k=%d/dim=%d", c.n, c.p, c.k, c.dim), func(b *testing.B) {
			h, ps, pd, nd := rankInput(c.n, c.dim, c.p, c.k, 1)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				var r metrics.Ranking
				if err := RankDot(h, c.dim, ps, pd, nd, c.k, &r); err != nil {
					b.Fatal(err)
				}
			}
			pairs := float64(c.p*(c.k+1)) * float64(b.N)
			b.ReportMetric(pairs/b.Elapsed().Seconds(), "pairs/s")
			b.ReportMetric(float64(cpuTime()-cpu)/pairs, "cpu-ns/pair")
		})
	}
}
