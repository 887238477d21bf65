// Package gemm multiplies the dense row-major matrices of layer projections
// (features times weights, and the two products of their backward), in
// float32 and float64, on several goroutines, with results that do not
// depend on GOMAXPROCS. It is written for the shapes of projections, many
// rows times a weight that fits the cache, first layers included (N from
// thousands to millions of rows, F from 100 to 4,000 features, outputs 8
// to 512 wide). On amd64 with AVX2 and FMA, float32 products run in
// assembly: the forward product in register tiles of 6 rows by 16 columns
// (12 by 8 for a last block of 8) over b packed in column blocks, its rows
// streamed once and prefetched a tile ahead; products over a short shared
// dimension (at most 64, as the input gradient's hidden width) into a wide
// output in strips of 6 rows, each swept in one call across all its
// blocks of 16 columns, b packed once (per class of rows) with its last
// block overlapping the one before it so that every tile is written straight into c, and c over
// 16 MiB written with non-temporal stores, on rows of a width that is a
// multiple of 4 in classes by their offset from a cache line so that no
// line takes both kinds of stores; the weight gradient over
// fixed chunks of rows summed in chunk order, in tiles of 6 features by 16
// columns (or 12 by 8) up to 128 wide, a chunk's features split in blocks
// among the goroutines and swept 12 rows at a time, and, wider,
// transposed with the features in the vector lanes. Every element is one chain of fused
// multiply-adds over the shared dimension in order (per chunk for the
// weight gradient), so the tiling and the split into tasks do not change
// the bits. Elsewhere, and with the purego build tag, products at most 32
// wide run in Go and wider ones in gonum's blocked matrix product.
// BenchmarkFMAPeak measures the machine's FMA peak, against which
// BenchmarkFirstLayer and BenchmarkMul report GFLOPS, and cpu-GFLOPS, the
// operations per second of CPU time, which on a shared machine tell the
// kernels' speed apart from the share of the cores they were given.
// BenchmarkMemPeak measures the memory bandwidth (reads, and non-temporal
// writes), against which BenchmarkFirstLayer reports GB/s, the bytes each
// product must read and write once: products of narrow outputs (width 8:
// 4 flops per byte of the N x F matrix) are bound by it, not by the FMAs.
package gemm
