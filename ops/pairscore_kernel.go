package ops

import (
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// The kernels of the pair scorers UCosV and DistMult. Each works one edge at
// a time from the rows of its endpoints and writes one number per edge (the
// forward) or one row per node (the backward, walking the CSR for sources and
// the CSC for destinations in edge-ID order), so nothing of size E x F is
// ever formed and every result has the same bits for any GOMAXPROCS.

// pairGrain is the smallest number of edge (or node) feature elements worth
// handing to another goroutine.
const pairGrain = 1 << 14

// dotF returns the dot product of a and b (equal lengths) in four
// interleaved partial sums, added in a fixed order.
func dotF[T num.Float](a, b []T) T {
	b = b[:len(a)]
	var s0, s1, s2, s3 T
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += a[j] * b[j]
		s1 += a[j+1] * b[j+1]
		s2 += a[j+2] * b[j+2]
		s3 += a[j+3] * b[j+3]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * b[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot3 returns sum_j a[j] w[j] b[j] (equal lengths) in four interleaved
// partial sums.
func dot3[T num.Float](a, w, b []T) T {
	w, b = w[:len(a)], b[:len(a)]
	var s0, s1, s2, s3 T
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += a[j] * w[j] * b[j]
		s1 += a[j+1] * w[j+1] * b[j+1]
		s2 += a[j+2] * w[j+2] * b[j+2]
		s3 += a[j+3] * w[j+3] * b[j+3]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * w[j] * b[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// rowNorms returns the Euclidean norm of every row of x (rows of f).
func rowNorms[T num.Float](x []T, f int) []T {
	n := len(x) / f
	out := make([]T, n)
	parallel.For(n, max(1, pairGrain/f), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := x[i*f : (i+1)*f]
			out[i] = T(math.Sqrt(float64(dotF(r, r))))
		}
	})
	return out
}

// cosKernel holds the operands of UCosV: a (NumSrc x F), b (NumDst x F),
// their row norms and eps.
type cosKernel[T num.Float] struct {
	g      *graph.Graph
	f      int
	a, b   []T
	na, nb []T
	eps    T
}

func newCosKernel[T num.Float](g *graph.Graph, f int, a, b []T, eps float64) *cosKernel[T] {
	return &cosKernel[T]{g: g, f: f, a: a, b: b, na: rowNorms(a, f), nb: rowNorms(b, f), eps: T(eps)}
}

// clamp returns max(n, eps).
func (k *cosKernel[T]) clamp(n T) T { return max(n, k.eps) }

// score returns the cosine of edge (u, v) and the product of its clamped
// norms.
func (k *cosKernel[T]) score(u, v int) (s, den T) {
	f := k.f
	den = k.clamp(k.na[u]) * k.clamp(k.nb[v])
	return dotF(k.a[u*f:(u+1)*f], k.b[v*f:(v+1)*f]) / den, den
}

// forward overwrites out (one per edge) with the scores.
func (k *cosKernel[T]) forward(out []T) {
	src, dst := k.g.COO()
	parallel.For(len(src), max(1, pairGrain/k.f), func(lo, hi int) {
		for e := lo; e < hi; e++ {
			out[e], _ = k.score(int(src[e]), int(dst[e]))
		}
	})
}

// grad overwrites out with the gradient with respect to a (bySrc, rows of
// the CSR) or b (rows of the CSC) from the score gradients ds: for node x
// with norm n and the other endpoint's row y on each of its edges,
//
//	d/dx = sum_e ds[e] (y / den[e] - [n > eps] s[e] x / n^2).
func (k *cosKernel[T]) grad(out, ds []T, bySrc bool) {
	c, x, y, nx := k.g.CSC(), k.b, k.a, k.nb
	if bySrc {
		c, x, y, nx = k.g.CSR(), k.a, k.b, k.na
	}
	f := k.f
	parallel.For(c.NumRows(), max(1, pairGrain/(8*f)), func(lo, hi int) {
		for n := lo; n < hi; n++ {
			row := out[n*f : (n+1)*f]
			clear(row)
			var self T // sum of ds[e] s[e]
			for p := c.Indptr[n]; p < c.Indptr[n+1]; p++ {
				e, o := int(c.EIDs[p]), int(c.Indices[p])
				u, v := n, o
				if !bySrc {
					u, v = o, n
				}
				s, den := k.score(u, v)
				g := ds[e]
				self += g * s
				coef := g / den
				for i, yv := range y[o*f : (o+1)*f] {
					row[i] += coef * yv
				}
			}
			if nn := nx[n]; nn > k.eps {
				coef := self / (nn * nn)
				for i, xv := range x[n*f : (n+1)*f] {
					row[i] -= coef * xv
				}
			}
		}
	})
}

// distMultKernel holds the operands of DistMult: a (NumSrc x F), w (R x F),
// b (NumDst x F) and the relation of every edge.
type distMultKernel[T num.Float] struct {
	g       *graph.Graph
	f       int
	a, w, b []T
	rel     []int32
}

// forward overwrites out (one per edge) with the scores.
func (k *distMultKernel[T]) forward(out []T) {
	src, dst := k.g.COO()
	f := k.f
	parallel.For(len(src), max(1, pairGrain/f), func(lo, hi int) {
		for e := lo; e < hi; e++ {
			u, v, r := int(src[e]), int(dst[e]), int(k.rel[e])
			out[e] = dot3(k.a[u*f:(u+1)*f], k.w[r*f:(r+1)*f], k.b[v*f:(v+1)*f])
		}
	})
}

// gradNodes overwrites out with the gradient with respect to a (bySrc: for
// every source u, sum over its out-edges of ds[e] w[r] * b[v]) or to b (the
// mirror image over the CSC).
func (k *distMultKernel[T]) gradNodes(out, ds []T, bySrc bool) {
	c, y := k.g.CSC(), k.a
	if bySrc {
		c, y = k.g.CSR(), k.b
	}
	f := k.f
	parallel.For(c.NumRows(), max(1, pairGrain/(8*f)), func(lo, hi int) {
		for n := lo; n < hi; n++ {
			row := out[n*f : (n+1)*f]
			clear(row)
			for p := c.Indptr[n]; p < c.Indptr[n+1]; p++ {
				e, o := int(c.EIDs[p]), int(c.Indices[p])
				g, r := ds[e], int(k.rel[e])
				wr := k.w[r*f : (r+1)*f]
				yr := y[o*f : (o+1)*f]
				for i := range row {
					row[i] += g * wr[i] * yr[i]
				}
			}
		}
	})
}

// partialBudget bounds the elements of the per-chunk partial sums of the
// relation gradient (8 MB of float64).
const partialBudget = 1 << 20

// gradW overwrites out (R x F) with the gradient with respect to w: for
// every relation r, the sum over its edges of ds[e] a[u] * b[v]. Chunks of
// edges add into partial tables that are summed in chunk order; the number
// of chunks shrinks as R x F grows so that the partials stay within
// partialBudget.
func (k *distMultKernel[T]) gradW(out, ds []T) {
	src, dst := k.g.COO()
	f, n := k.f, len(src)
	chunks := min(64, max(1, partialBudget/max(1, len(out))))
	parallel.Sum(out, n, max(256, (n+chunks-1)/chunks), func(acc []T, lo, hi int) {
		for e := lo; e < hi; e++ {
			u, v, r := int(src[e]), int(dst[e]), int(k.rel[e])
			g := ds[e]
			ar, br := k.a[u*f:(u+1)*f], k.b[v*f:(v+1)*f]
			row := acc[r*f : (r+1)*f]
			for i := range row {
				row[i] += g * ar[i] * br[i]
			}
		}
	})
}
