package main

import (
	"os"
	"syscall"
)

// childPeakRSS returns the peak resident set size of the ended child
// process ps in bytes, from its resource usage (ru_maxrss, in KiB on
// Linux), or 0 where there is none.
func childPeakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return ru.Maxrss * 1024
	}
	return 0
}
