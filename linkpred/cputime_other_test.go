//go:build !unix

package linkpred

// cpuSeconds is not measured on this platform: the per-CPU-second metric
// is then omitted.
func cpuSeconds() float64 { return 0 }
