// Package spmm implements the generalized sparse-dense matrix product of
// graph neural networks: DGL's gspmm, a message function and a reduction
// fused into one pass, so per-edge messages are never stored.
//
// For each destination node v, Forward reduces (Sum, Mean, Max or Min) the
// messages of v's in-edges e = (u -> v), where a message is a source-node
// row, an edge row, or the two combined element-wise (Add, Sub, Mul, Div)
// under a NumPy-style broadcast plan from package bcast: (N,H,D) node
// features with (E,H,1) attention weights, say, without expanding either.
//
//	CopyU + Sum  out = Aᵀ X              GCN aggregation
//	Mul + Sum    out[v] = Σ a_e · x_u    weighted or attention aggregation
//	CopyE + Sum  out[v] = Σ w_e          sums of edge values per node
//
// Kernels are generic over float32 and float64, and work row-parallel over
// destination nodes through the graph's in-edge view (CSC), each worker
// writing only its own rows: no atomics, and the same bits for any
// GOMAXPROCS. Within a row, messages are reduced in increasing edge ID.
//
// Fast paths cover copy_u and copy_e sums, Mul with a scalar weight per edge
// or per head, and same-shape binary ops; any other plan goes through the
// general path, which builds one message at a time in a small scratch row.
// On amd64 with AVX2, float32 copy_u sums, max and min, and Mul with a
// weight per edge or per head (of rows of at least 8 features; heads
// narrower than 8, GAT's 8x2 say, through a per-chunk permutation of the
// weights) run in assembly that prefetches the source rows of edges ahead:
// gathering rows from a feature matrix larger than the cache is bound by
// memory latency. The assembly
// adds and compares in the same order as the Go loops and gives the same
// bits; build with the purego tag to use Go alone.
//
// Gradients of Sum and Mean are themselves SpMMs and SDDMMs (on the reversed
// graph for u) and are composed by the op layer; BackwardArg gives those of
// Max and Min from the arg indices Forward records.
//
// The package holds kernels only: inputs are raw slices whose lengths are
// internal invariants, and a mismatch panics. Package ops validates user
// input and wraps the kernels as Gorgonia ops.
package spmm
