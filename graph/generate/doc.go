// Package generate builds seeded, reproducible graphs: uniform random graphs
// (the ablation graphs of the DGL kernel-fusion study), power-law R-MAT graphs
// (Graph500) and small deterministic fixtures for tests.
//
// The random generators return an error for bad arguments. They draw edges in
// chunks of 2^20, each from its own random stream of the seed, in parallel,
// so the same arguments always give the same graph whatever GOMAXPROCS is.
// Self-loops and parallel edges may occur in random graphs, as in DGL's and
// PyG's.
//
// The fixtures (Empty, Path, Cycle, Star, Complete, CompleteBipartite, Grid,
// SelfLoops, ParallelEdges) take literal sizes and panic, as make does, on a
// negative one; they list edges in increasing (source, destination) order.
package generate
