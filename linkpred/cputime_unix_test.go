//go:build unix

package linkpred

import "syscall"

// cpuSeconds returns the user and system CPU time the process has used, so
// that benchmarks on a shared machine can report throughput per CPU second
// as well as per wall-clock second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
