//go:build unix

package link

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used: on
// a machine shared with other work, the benchmarks report it beside the
// wall time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
