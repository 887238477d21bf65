package ops

import (
	"math"
	"runtime"
	"unsafe"

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
// the CSR) or b (rows of the CSC) from the scores s and their gradients ds:
// for node x with norm n and the other endpoint's row y on each of its
// edges,
//
//	d/dx = (sum_e ds[e] y / max(|y|, eps)) / max(n, eps) - [n > eps] (sum_e ds[e] s[e]) x / n^2.
func (k *cosKernel[T]) grad(out, s, ds []T, bySrc bool) {
	c, x, y, nx, ny := k.g.CSC(), k.b, k.a, k.nb, k.na
	if bySrc {
		c, x, y, nx, ny = k.g.CSR(), k.a, k.b, k.na, k.nb
	}
	f := k.f
	walkRows(c, out, f, y, nil, nil, func(coef, self []T, other, eids []int32) {
		for i, e := range eids {
			g := ds[e]
			coef[i] = g / k.clamp(ny[other[i]])
			self[i] = g * s[e]
		}
	}, func(row []T, n int, self T) {
		inv := 1 / k.clamp(nx[n])
		for i := range row {
			row[i] *= inv
		}
		if nn := nx[n]; nn > k.eps {
			cf := self / (nn * nn)
			for i, xv := range x[n*f : (n+1)*f] {
				row[i] -= cf * xv
			}
		}
	})
}

// walkBlock is how many edges walkRows resolves at once: their scalars
// are computed and their rows requested before any is accumulated, so that
// the cache misses of a block overlap instead of stalling one edge at a
// time behind the accumulation into the node's row.
const walkBlock = 64

// walkRows computes, for every row n of c, out's row n (f wide) as the sum
// over the row's edges, in storage (edge-ID) order, of coef[e] times the
// product of row other(e) of y and, when w is not nil, row rel[e] of w,
// then finishes it. scalars sets, for a block of edges (their edge IDs and
// other endpoints), each one's coefficient and a scalar summed per row
// (self); finish, when not nil, is called once per row with the row's self
// sum. The other endpoints' rows of y are touched a block ahead. Rows run
// in parallel; each is summed in a fixed order.
func walkRows[T num.Float](c *graph.Compressed, out []T, f int, y, w []T, rel []int32,
	scalars func(coef, self []T, other, eids []int32),
	finish func(row []T, n int, self T)) {
	parallel.For(c.NumRows(), max(1, pairGrain/(8*f)), func(lo, hi int) {
		var coef, self [walkBlock]T
		var rels [walkBlock]int32
		clear(out[lo*f : hi*f])
		n, selfN := lo, T(0)
		next := c.Indptr[n+1]
		p0, p1 := int(c.Indptr[lo]), int(c.Indptr[hi])
		for q0 := p0; q0 < p1; q0 += walkBlock {
			q1 := min(q0+walkBlock, p1)
			other, eids := c.Indices[q0:q1], c.EIDs[q0:q1]
			scalars(coef[:q1-q0], self[:q1-q0], other, eids)
			if rel != nil {
				for i, e := range eids {
					rels[i] = rel[e]
				}
			}
			touchRows(y, other, f)
			for p := q0; p < q1; p++ {
				for int64(p) >= next {
					if finish != nil {
						finish(out[n*f:(n+1)*f], n, selfN)
					}
					n, selfN = n+1, 0
					next = c.Indptr[n+1]
				}
				row := out[n*f : (n+1)*f]
				o := int(other[p-q0])
				yr := y[o*f : (o+1)*f]
				yr = yr[:len(row)]
				g := coef[p-q0]
				if w != nil {
					r := int(rels[p-q0])
					wr := w[r*f : (r+1)*f]
					wr = wr[:len(row)]
					for i := range row {
						row[i] += g * wr[i] * yr[i]
					}
				} else {
					for i := range row {
						row[i] += g * yr[i]
					}
				}
				selfN += self[p-q0]
			}
		}
		if finish != nil {
			for ; n < hi; n, selfN = n+1, 0 {
				finish(out[n*f:(n+1)*f], n, selfN)
			}
		}
	})
}

// touchRows loads one element of every cache line of the given rows of x
// (f wide), so that the arithmetic that follows finds them cached: issued
// back to back, the misses overlap. The values are folded into an integer
// kept alive, so that the loads are not optimised away.
func touchRows[T num.Float](x []T, rows []int32, f int) {
	var z T
	step := 64 / int(unsafe.Sizeof(z))
	var s int
	for _, r := range rows {
		xr := x[int(r)*f : int(r+1)*f]
		for j := 0; j < len(xr); j += step {
			s += int(xr[j])
		}
	}
	runtime.KeepAlive(s)
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
	walkRows(c, out, f, y, k.w, k.rel, func(coef, _ []T, _, eids []int32) {
		for i, e := range eids {
			coef[i] = ds[e]
		}
	}, nil)
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
