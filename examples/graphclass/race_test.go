//go:build race

package main

// raceEnabled is set when the race detector slows training tenfold.
const raceEnabled = true
