package gemm

import (
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// blockRows is how many rows the AVX2 drivers hand to a kernel call at a
// time: the rows whose padded copies share one scratch, and in MulTransA
// the rows of a that each tile of the weight gradient sweeps while they
// stay in the core's L2 cache (64 rows of 500 features are 128 KB).
const blockRows = 64

// padded returns the width in which the AVX2 kernels compute products m
// wide: m rounded up to a multiple of 8, or 0 when they do not apply
// (float64, no AVX2, m or k zero).
func padded[T num.Float](m, k int) int {
	var z T
	if _, ok := any(z).(float32); !ok || !useAVX2 || m == 0 || k == 0 {
		return 0
	}
	return (m + 7) &^ 7
}

// mulAccel is Mul with the AVX2 kernel, in rows of w = padded(m, k)
// columns. When m is not a multiple of 8, b is padded once with zero
// columns and the rows computed into scratch, of which the first m columns
// are kept: columns are computed independently, so the padding changes
// nothing else.
func mulAccel(c, a, b []float32, n, k, m, w int) {
	if w > m {
		b = padRows(b, k, m, w, nil)
	}
	parallel.For(n, rowsPerTask, func(lo, hi int) {
		if w == m {
			mulRowsF32(&c[lo*m], &a[lo*k], &b[0], hi-lo, k, m)
			return
		}
		scratch := parallel.Scratch[float32](blockRows * w)
		defer parallel.PutScratch(scratch)
		clear(scratch)
		for i := lo; i < hi; i += blockRows {
			r := min(blockRows, hi-i)
			mulRowsF32(&scratch[0], &a[i*k], &b[0], r, k, w)
			for j := range r {
				copy(c[(i+j)*m:(i+j+1)*m], scratch[j*w:j*w+m])
			}
		}
	})
}

// outerAccel adds to p (k x w) the transpose of a (n x k) times b (n x m),
// with the AVX2 kernel, in blocks of rows; w = padded(m, k), and b's rows
// are copied into pad (blockRows x w) with zero columns when w > m.
func outerAccel(p, a, b, pad []float32, n, k, m, w int) {
	for i := 0; i < n; i += blockRows {
		r := min(blockRows, n-i)
		bi := b[i*m : (i+r)*m]
		if w > m {
			bi = padRows(bi, r, m, w, pad)
		}
		outerRowsF32(&p[0], &a[i*k], &bi[0], r, k, w)
	}
}

// padRows returns the r rows of x (r x m) widened to w columns with zeros,
// in dst when it is long enough.
func padRows(x []float32, r, m, w int, dst []float32) []float32 {
	if len(dst) < r*w {
		dst = make([]float32, r*w)
	}
	dst = dst[:r*w]
	for j := range r {
		copy(dst[j*w:j*w+m], x[j*m:(j+1)*m])
		clear(dst[j*w+m : (j+1)*w])
	}
	return dst
}
