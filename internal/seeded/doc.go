// Package seeded holds the counter-based random streams that packages
// sampling and linkpred draw from: a Stream is a PCG generator keyed by a
// call's seed and a position (a seed node, a positive pair), so that what
// a position draws does not depend on which goroutine draws it, nor on
// GOMAXPROCS. Mix64, the SplitMix64 finaliser, spreads seeds and
// positions over the generator's state.
package seeded
