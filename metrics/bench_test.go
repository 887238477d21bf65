package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkBinary measures AUC and AP of n positive and n negative scores.
func BenchmarkBinary(b *testing.B) {
	for _, n := range []int{100_000} {
		rng := rand.New(rand.NewPCG(1, 1))
		pos, neg := make([]float64, n), make([]float64, n)
		for i := range pos {
			pos[i], neg[i] = rng.NormFloat64()+1, rng.NormFloat64()
		}
		var s Binary
		s.Add(pos, neg)
		b.Run(fmt.Sprintf("metric=auc/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.AUC(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*n)*float64(b.N)/b.Elapsed().Seconds(), "scores/s")
		})
		b.Run(fmt.Sprintf("metric=ap/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.AveragePrecision(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*n)*float64(b.N)/b.Elapsed().Seconds(), "scores/s")
		})
	}
}

// BenchmarkHitsAtK measures streaming n negatives through Hits@50.
func BenchmarkHitsAtK(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(2, 2))
	neg := make([]float64, n)
	for i := range neg {
		neg[i] = rng.NormFloat64()
	}
	b.ReportAllocs()
	for b.Loop() {
		h, _ := NewHitsAtK(50)
		if err := h.Add([]float64{1}, neg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "scores/s")
}
