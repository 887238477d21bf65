package bench

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the peak resident set size of the calling process so
// far (VmHWM in /proc/self/status), or 0 where it cannot be read. The
// kernel keeps one high-water mark per process and it cannot be reset, so
// it covers everything the process did: the harness runs every Spec in a
// fresh process for that reason.
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			kib, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0
			}
			return kib * 1024
		}
	}
	return 0
}
