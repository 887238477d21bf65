//go:build race

package train_test

// raceEnabled: the race detector makes sync.Pool drop values at random, so
// allocation bounds do not hold under it.
const raceEnabled = true
