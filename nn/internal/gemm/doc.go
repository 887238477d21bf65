// Package gemm multiplies the dense row-major matrices of layer projections
// (features times weights, and the two products of their backward), in
// float32 and float64, on several goroutines, with results that do not
// depend on GOMAXPROCS. It is written for the tall products of
// projections, many rows times a weight that fits the cache: on amd64 with
// AVX2 and FMA, float32 products run in assembly, in register tiles of up
// to 12 rows by 8 columns, in widths padded to a multiple of 8. Elsewhere,
// and with the purego build tag, products at most 32 wide run in Go and
// wider ones in gonum's blocked matrix product.
package gemm
