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
// nodes: pairs/s counts the p*(k+1) scores.
func BenchmarkRankDot(b *testing.B) {
	for _, c := range []struct{ n, p, k, dim int }{
		{1000, 2000, 1000, 64},
		{100_000, 2000, 1000, 64},
		{1_000_000, 2000, 1000, 64},
	} {
		h, ps, pd, nd := rankInput(c.n, c.dim, c.p, c.k, 1)
		b.Run(fmt.Sprintf("n=%d/pos=%d/k=%d/dim=%d", c.n, c.p, c.k, c.dim), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var r metrics.Ranking
				if err := RankDot(h, c.dim, ps, pd, nd, c.k, &r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.p*(c.k+1))*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}
