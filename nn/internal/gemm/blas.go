package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/gnngo/gnn/internal/num"
)

// maxOwnWidth is the widest output row that this package's kernels
// multiply into; wider products go to gonum's blocked matrix product,
// which reuses cached panels of both operands better (measured on PubMed's
// 19717 x 500 features: a 500 x 64 projection and its gradient took 104-120
// ms per GAT epoch here against 95-100 ms with gonum, while 16-wide ones
// were 1.3x faster here). Gonum computes each block of the output on one
// goroutine in a fixed order, so its results do not depend on GOMAXPROCS
// either.
const maxOwnWidth = 32

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
