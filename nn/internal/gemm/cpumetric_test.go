package gemm

import "testing"

// reportCPU reports cpu-GFLOPS, flops over the CPU time the process spent
// since c0 (cpuSeconds): on a shared machine it says what the wall-clock
// GFLOPS do not, how fast the work ran on the share of the cores it had.
// Nothing is reported where the CPU time is not known.
func reportCPU(b *testing.B, flops, c0 float64) {
	if t := cpuSeconds() - c0; c0 > 0 && t > 0 {
		b.ReportMetric(flops/t/1e9, "cpu-GFLOPS")
	}
}
