// Package generate builds seeded, reproducible graphs: uniform random graphs
// (the ablation graphs of the DGL kernel-fusion study), power-law R-MAT graphs
// and small fixtures for tests. The same arguments and seed always give the
// same graph, whatever GOMAXPROCS is.
package generate
