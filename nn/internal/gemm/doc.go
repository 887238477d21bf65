// Package gemm multiplies the dense row-major matrices of layer projections
// (features times weights, and the two products of their backward), in
// float32 and float64, on several goroutines, with results that do not
// depend on GOMAXPROCS. It is written for the tall, narrow products of
// projections (output rows of at most 32): on amd64 with AVX2 and FMA,
// float32 products run in assembly, in widths padded to a multiple of 8;
// elsewhere, and with the purego build tag, in Go. Wider products go to
// gonum's blocked matrix product.
package gemm
