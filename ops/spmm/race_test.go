//go:build race

package spmm

// raceEnabled reports a -race build, whose instrumentation allocates.
const raceEnabled = true
