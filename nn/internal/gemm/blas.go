package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/gnngo/gnn/internal/num"
)

// maxGoWidth is the widest output row that the Go loops multiply into;
// wider products that the AVX2 kernels do not take (float64, the purego
// build, machines without AVX2) go to gonum's blocked matrix product. The
// AVX2 kernels take every float32 width: against gonum they were 4 to 10
// times faster on dense inputs of the shapes of our layers (100,000 x 500
// features times 500 x 16 and 500 x 64 in BenchmarkMul; 32768 x 64 times
// 64 x 512 and 64 x 4096 in a one-off run; and the weight gradients of
// each). Gonum skips zero entries of a, so on inputs that are mostly zeros
// it can be faster. Gonum computes each block of
// the output on one goroutine in a fixed order, so its results do not
// depend on GOMAXPROCS either.
const maxGoWidth = 32

// useGonum reports whether a product m wide, over a shared dimension k,
// goes to gonum.
func useGonum[T num.Float](m, k int) bool {
	return m > maxGoWidth && padded[T](m, k) == 0
}

// gonumGemm sets c (r x q) to op(a) times b, with op(a) = a (r x p) or, when
// transA, the transpose of a (p x r), and b p x q, all row-major.
func gonumGemm[T num.Float](transA bool, r, q, p int, a, b, c []T) {
	if r == 0 || q == 0 {
		return
	}
	if p == 0 {
		clear(c)
		return
	}
	ta, lda := blas.NoTrans, p
	if transA {
		ta, lda = blas.Trans, r
	}
	switch a := any(a).(type) {
	case []float32:
		blas32.Implementation().Sgemm(ta, blas.NoTrans, r, q, p, 1, a, lda, any(b).([]float32), q, 0, any(c).([]float32), q)
	case []float64:
		blas64.Implementation().Dgemm(ta, blas.NoTrans, r, q, p, 1, a, lda, any(b).([]float64), q, 0, any(c).([]float64), q)
	}
}
