package limits

import "os"

// PeakRSS returns the peak resident set size of the calling process so
// far, in bytes: VmHWM of /proc/self/status, or 0 where that cannot be
// read (not Linux). The kernel keeps one high-water mark per process and
// it cannot be reset, so it covers everything the process did.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	n, _ := parseKiB(data, "VmHWM:")
	return n
}
