package gemm

import (
	"fmt"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// rowsPerTask is the least number of output rows a goroutine takes.
const rowsPerTask = 64

// Mul overwrites c (n x m) with a (n x k) times b (k x m). Rows of c are
// independent, so the result is the same for any GOMAXPROCS. Products more
// than maxOwnWidth wide go to gonum.
func Mul[T num.Float](c, a, b []T, n, k, m int) {
	check("Mul", c, n*m, a, n*k, b, k*m)
	if m > maxOwnWidth {
		gonumGemm(false, n, m, k, a, b, c)
		return
	}
	parallel.For(n, rowsPerTask, func(lo, hi int) {
		if mulAccel(c, a, b, k, m, lo, hi) {
			return
		}
		for i := lo; i < hi; i++ {
			row(c[i*m:(i+1)*m], a[i*k:(i+1)*k], b, m)
		}
	})
}

// MulTransB overwrites c (n x k) with a (n x m) times the transpose of b
// (k x m): the gradient of Mul with respect to a.
func MulTransB[T num.Float](c, a, b []T, n, k, m int) {
	check("MulTransB", c, n*k, a, n*m, b, k*m)
	bt := make([]T, m*k)
	for j := range k {
		for l := range m {
			bt[l*k+j] = b[j*m+l]
		}
	}
	Mul(c, a, bt, n, m, k)
}

// MulTransA overwrites c (k x m) with the transpose of a (n x k) times b
// (n x m): the gradient of Mul with respect to b. The rows are split into
// chunks whose number depends on n only; each chunk's partial product is
// summed in its own scratch, and the partials are added in chunk order, so
// the result is the same for any GOMAXPROCS.
func MulTransA[T num.Float](c, a, b []T, n, k, m int) {
	check("MulTransA", c, k*m, a, n*k, b, n*m)
	if m > maxOwnWidth {
		gonumGemm(true, k, m, n, a, b, c)
		return
	}
	if n == 0 {
		clear(c)
		return
	}
	per := max(4096, (n+63)/64)
	chunks := (n + per - 1) / per
	// The partials are w wide: m, or m padded to the vector kernel's
	// multiple of 8 with zero columns of b.
	w := padded[T](m, k)
	if w == 0 {
		w = m
	}
	partial := make([]T, chunks*k*w)
	parallel.For(chunks, 1, func(lo, hi int) {
		pad := make([]T, w) // a row of b padded to w, when w > m
		for ch := lo; ch < hi; ch++ {
			p := partial[ch*k*w : (ch+1)*k*w]
			for i := ch * per; i < min((ch+1)*per, n); i++ {
				bi := b[i*m : (i+1)*m]
				if w > m {
					copy(pad, bi)
					bi = pad
				}
				outer(p, a[i*k:(i+1)*k], bi)
			}
		}
	})
	for j := range k {
		cj := c[j*m : (j+1)*m]
		copy(cj, partial[j*w:j*w+m])
		for ch := 1; ch < chunks; ch++ {
			for l, v := range partial[ch*k*w+j*w : ch*k*w+j*w+m] {
				cj[l] += v
			}
		}
	}
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
	if outerAccel(p, a, b) {
		return
	}
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
