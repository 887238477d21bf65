//go:build !unix

package link

import "time"

// cpuTime returns 0: the benchmarks report no CPU time on this system.
func cpuTime() time.Duration { return 0 }
