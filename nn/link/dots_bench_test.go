package link

import (
	"fmt"
	"testing"
)

// BenchmarkDots measures the dot-product kernel alone on a table of n rows
// (cached for small n), 2^20 pairs per call.
func BenchmarkDots(b *testing.B) {
	const pairs = 1 << 20
	for _, n := range []int{1000, 1_000_000} {
		for _, accel := range []bool{true, false} {
			if accel && !useFMA {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/dim=64/fma=%v", n, accel), func(b *testing.B) {
				h, left, right, _ := rankInput(n, 64, pairs, 0, 2)
				out := make([]float32, pairs)
				saved := useFMA
				useFMA = accel
				defer func() { useFMA = saved }()
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cpuTime()
				for b.Loop() {
					dots(out, h, 64, left, right)
				}
				b.ReportMetric(float64(pairs)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
				b.ReportMetric(float64(cpuTime()-cpu)/(float64(pairs)*float64(b.N)), "cpu-ns/pair")
			})
		}
	}
}
