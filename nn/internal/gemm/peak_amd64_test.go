//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"sync"
	"testing"
)

// fmaPeakF32 runs n iterations of 12 independent 8-wide fused
// multiply-adds (peak_amd64.s).
//
//go:noescape
func fmaPeakF32(n int)

// BenchmarkFMAPeak measures the machine's float32 fused multiply-add peak,
// the yardstick of the GFLOPS that BenchmarkMul and BenchmarkFirstLayer
// report: one goroutine per core counted, each running a register-only loop
// of independent 8-wide FMAs.
func BenchmarkFMAPeak(b *testing.B) {
	if !useAVX2 {
		b.Skip("no AVX2 and FMA")
	}
	const iters = 1 << 16 // 12.6 MFLOP a call
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("cores=%d", procs), func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuSeconds()
			for b.Loop() {
				var wg sync.WaitGroup
				for range procs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						fmaPeakF32(iters)
					}()
				}
				wg.Wait()
			}
			flops := 192 * float64(iters) * float64(procs) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOPS")
			reportCPU(b, flops, c0)
		})
	}
}
