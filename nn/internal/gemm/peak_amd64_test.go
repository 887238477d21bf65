//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// fmaPeakF32 runs n iterations of 12 independent 8-wide fused
// multiply-adds (peak_amd64.s).
//
//go:noescape
func fmaPeakF32(n int)

// readPeakF32 reads n floats from p, n a multiple of 64 (peak_amd64.s).
//
//go:noescape
func readPeakF32(p *float32, n int)

// writePeakF32 writes zeros over n floats at p with non-temporal stores, n
// a multiple of 64 and p on a 32-byte boundary (peak_amd64.s).
//
//go:noescape
func writePeakF32(p *float32, n int)

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

// BenchmarkMemPeak measures the memory bandwidth that bounds the products
// of narrow outputs, the other yardstick of BenchmarkFirstLayer: a 256 MiB
// array read (dir=read, 8 loads an iteration into independent adds) or
// written with non-temporal stores (dir=write), split between one
// goroutine per core counted. A product that does f flops per byte it must
// move runs at most at f times these GB/s: BenchmarkFirstLayer's output
// width 8 does 4 flops per byte of a (n x k) it reads or writes.
func BenchmarkMemPeak(b *testing.B) {
	if !useAVX2 {
		b.Skip("no AVX2")
	}
	const n = 64 << 20
	buf := make([]float32, n+8)
	off := int(32-uintptr(unsafe.Pointer(&buf[0]))%32) % 32 / 4
	x := buf[off : off+n]
	for i := range x {
		x[i] = 1
	}
	for _, dir := range []string{"read", "write"} {
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("dir=%s/cores=%d", dir, procs), func(b *testing.B) {
				b.ReportAllocs()
				part := n / procs
				for b.Loop() {
					var wg sync.WaitGroup
					for p := range procs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							if dir == "read" {
								readPeakF32(&x[p*part], part)
							} else {
								writePeakF32(&x[p*part], part)
							}
						}()
					}
					wg.Wait()
				}
				b.ReportMetric(4*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}
