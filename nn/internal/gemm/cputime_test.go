//go:build unix

package gemm

import "syscall"

// cpuSeconds returns the CPU time of the process so far, user and system,
// or 0 where getrusage fails.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
