package gemm

import (
	"fmt"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// rowsPerTask is the least number of output rows a goroutine takes.
const rowsPerTask = 64

// chunkRows is the least number of rows in a chunk of MulTransA's sum
// (parallel.Sum): at 1024, PubMed's 19717 rows make 20 chunks, which two
// goroutines share evenly.
const chunkRows = 1024

// Mul overwrites c (n x m) with a (n x k) times b (k x m). Rows of c are
// independent, so the result is the same for any GOMAXPROCS. Products that
// the AVX2 kernels do not take and that are more than maxGoWidth wide go to
// gonum.
func Mul[T num.Float](c, a, b []T, n, k, m int) {
	check("Mul", c, n*m, a, n*k, b, k*m)
	if useGonum[T](m, k) {
		gonumGemm(false, n, m, k, a, b, c)
		return
	}
	if w := padded[T](m, k); w != 0 {
		mulAccel(any(c).([]float32), any(a).([]float32), any(b).([]float32), n, k, m, w)
		return
	}
	parallel.For(n, rowsPerTask, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row(c[i*m:(i+1)*m], a[i*k:(i+1)*k], b, m)
		}
	})
}

// MulTransB overwrites c (n x k) with a (n x m) times the transpose of b
// (k x m): the gradient of Mul with respect to a.
func MulTransB[T num.Float](c, a, b []T, n, k, m int) {
	check("MulTransB", c, n*k, a, n*m, b, k*m)
	if padded[T](k, m) != 0 {
		if ok, nt := stripPlan(n, m, k); ok {
			mulStrip(any(c).([]float32), any(a).([]float32), any(b).([]float32), n, m, k, nt, true)
			return
		}
	}
	bt := parallel.Scratch[T](m * k)
	defer parallel.PutScratch(bt)
	for j := range k {
		for l := range m {
			bt[l*k+j] = b[j*m+l]
		}
	}
	Mul(c, a, bt, n, m, k)
}

// MulTransA overwrites c (k x m) with the transpose of a (n x k) times b
// (n x m): the gradient of Mul with respect to b. The rows are summed in
// chunks whose bounds depend on n only, added in chunk order
// (parallel.Sum), so the result is the same for any GOMAXPROCS.
func MulTransA[T num.Float](c, a, b []T, n, k, m int) {
	check("MulTransA", c, k*m, a, n*k, b, n*m)
	if useGonum[T](m, k) {
		gonumGemm(true, k, m, n, a, b, c)
		return
	}
	MulTransARows(c, func(lo, hi int) []T { return a[lo*k : hi*k] }, b, n, k, m)
}

// MulTransARows is MulTransA with the rows lo to hi-1 of a given by
// a(lo, hi), (hi-lo) x k, which may be called from several goroutines at
// once, and more than once for the same rows: for an a held in pieces,
// which it reads a chunk of rows at a time without a copy of the whole. The result has MulTransA's bits on the
// stacked rows. Products that MulTransA gives to gonum read all of a at
// once.
func MulTransARows[T num.Float](c []T, a func(lo, hi int) []T, b []T, n, k, m int) {
	check("MulTransARows", c, k*m, nil, 0, b, n*m)
	if useGonum[T](m, k) {
		gonumGemm(true, k, m, n, a(0, n), b, c)
		return
	}
	if padded[T](m, k) == 0 {
		parallel.Sum(c, n, chunkRows, func(p []T, lo, hi int) {
			rows := a(lo, hi)
			for i := lo; i < hi; i++ {
				outer(p, rows[(i-lo)*k:(i-lo+1)*k], b[i*m:(i+1)*m])
			}
		})
		return
	}
	rows := func(lo, hi int) []float32 { return any(a(lo, hi)).([]float32) }
	tmulAccel(any(c).([]float32), rows, any(b).([]float32), n, k, m)
}

// row sets c (m values) to the row vector a times b (len(a) x m).
func row[T num.Float](c, a, b []T, m int) {
	clear(c)
	for j, v := range a {
		bj := b[j*m : (j+1)*m]
		for l := range c {
			c[l] += v * bj[l]
		}
	}
}

// outer adds the outer product of a and b to p (len(a) x len(b)).
func outer[T num.Float](p, a, b []T) {
	m := len(b)
	for j, v := range a {
		pj := p[j*m : (j+1)*m]
		for l, w := range b {
			pj[l] += v * w
		}
	}
}

// check panics unless the slices have the lengths of their shapes: internal
// invariants that the op layer checks before calling.
func check[T num.Float](name string, c []T, nc int, a []T, na int, b []T, nb int) {
	if len(c) != nc || len(a) != na || len(b) != nb {
		panic(fmt.Sprintf("gemm: %s: lengths %d, %d, %d, want %d, %d, %d", name, len(c), len(a), len(b), nc, na, nb))
	}
}
