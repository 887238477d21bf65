//go:build !linux

package main

import "os"

// childPeakRSS returns 0: the unit of ru_maxrss differs between the other
// systems (bytes on macOS, KiB on the BSDs) and Windows has none, so the
// run's peak is the largest resident size the watchdog sampled, with the
// child's own report.
func childPeakRSS(*os.ProcessState) int64 { return 0 }
