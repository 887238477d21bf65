package ops

import (
	"math"
	"runtime"
	"unsafe"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// The kernels of the pair scorers UCosV and DistMult. The forward writes
// one number per edge from the rows of its endpoints; the backward writes
// one row per node, summing its edges in edge-ID order (the cosine's through
// the SpMM kernel with a scalar weight per edge, DistMult's walking the CSR
// for sources and the CSC for destinations). Nothing of size E x F is ever
// formed, and every result has the same bits for any GOMAXPROCS.

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

// forward overwrites out (one per edge) with the scores: the dot products
// by the u_dot_v SDDMM kernel, then each divided by its clamped norms.
func (k *cosKernel[T]) forward(out []T) {
	p, err := bcast.New([]int{k.f}, []int{k.f}, true)
	if err != nil {
		panic(err) // (f) with (f) always broadcasts
	}
	sddmm.Forward(out, k.g, sddmm.Dot, k.a, sddmm.U, k.b, sddmm.V, p)
	src, dst := k.g.COO()
	parallel.For(len(src), pairGrain, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			out[e] /= k.clamp(k.na[src[e]]) * k.clamp(k.nb[dst[e]])
		}
	})
}

// grad overwrites out with the gradient with respect to a (bySrc) or b
// from the scores s and their gradients ds: for node x with norm n and the
// other endpoint's row y on each of its edges,
//
//	d/dx = (sum_e ds[e] y / max(|y|, eps)) / max(n, eps) - [n > eps] (sum_e ds[e] s[e]) x / n^2.
//
// The first sum is an SpMM with a scalar weight per edge, ds[e] /
// max(|y|, eps), and the row scaling (spmm.ForwardScaled: over g for b, over
// its reverse for a, the same edge IDs), the second an SpMM of per-edge
// scalars: E numbers of scratch, no row per edge.
func (k *cosKernel[T]) grad(out, s, ds []T, bySrc bool) {
	g, x, nx, ny := k.g, k.b, k.nb, k.na
	y := k.a
	src, dst := k.g.COO()
	other := src
	if bySrc {
		g, x, nx, ny, y, other = k.g.Reverse(), k.a, k.na, k.nb, k.b, dst
	}
	f := k.f
	coef, gs := make([]T, len(ds)), make([]T, len(ds))
	parallel.For(len(ds), pairGrain, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			coef[e] = ds[e] / k.clamp(ny[other[e]])
			gs[e] = ds[e] * s[e]
		}
	})
	inv := make([]T, len(nx))
	for i, n := range nx {
		inv[i] = 1 / k.clamp(n)
	}
	p, err := bcast.New([]int{f}, []int{1}, false)
	if err != nil {
		panic(err) // (f) with (1) always broadcasts
	}
	spmm.ForwardScaled(out, g, spmm.Mul, y, coef, p, inv)
	self := make([]T, len(nx))
	spmm.Forward(self, g, spmm.CopyE, spmm.Sum, nil, gs, bcast.Same([]int{1}), nil)
	parallel.For(len(nx), max(1, pairGrain/f), func(lo, hi int) {
		for n := lo; n < hi; n++ {
			nn := nx[n]
			if !(nn > k.eps) || self[n] == 0 {
				continue
			}
			cf := self[n] / (nn * nn)
			row := out[n*f : (n+1)*f]
			for i, xv := range x[n*f : (n+1)*f] {
				row[i] -= cf * xv
			}
		}
	})
}

// walkBlock is how many edges gradNodes resolves at once: their scalars
// are gathered and their rows requested before any is accumulated, so that
// the cache misses of a block overlap instead of stalling one edge at a
// time behind the accumulation into the node's row.
const walkBlock = 64

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
	if k.single() {
		p, err := bcast.New([]int{k.f}, []int{k.f}, true)
		if err != nil {
			panic(err) // (f) with (f) always broadcasts
		}
		sddmm.Forward(out, k.g, sddmm.Dot, k.scaled(), sddmm.U, k.b, sddmm.V, p)
		return
	}
	src, dst := k.g.COO()
	f := k.f
	parallel.For(len(src), max(1, pairGrain/f), func(lo, hi int) {
		for e := lo; e < hi; e++ {
			u, v, r := int(src[e]), int(dst[e]), int(k.rel[e])
			out[e] = dot3(k.a[u*f:(u+1)*f], k.w[r*f:(r+1)*f], k.b[v*f:(v+1)*f])
		}
	})
}

// single reports one relation: the scores are then u_dot_v of a * w and b,
// and forward and backward run on the SDDMM and SpMM kernels.
func (k *distMultKernel[T]) single() bool { return len(k.w) == k.f }

// scaled returns a with every row multiplied by the one relation vector.
func (k *distMultKernel[T]) scaled() []T {
	f, w := k.f, k.w
	aw := make([]T, len(k.a))
	parallel.For(len(aw)/f, max(1, pairGrain/f), func(lo, hi int) {
		for i := lo * f; i < hi*f; i++ {
			aw[i] = k.a[i] * w[i%f]
		}
	})
	return aw
}

// scalarPlan is the broadcast of an f-wide row by one weight per edge.
func (k *distMultKernel[T]) scalarPlan() bcast.Plan {
	p, err := bcast.New([]int{k.f}, []int{1}, false)
	if err != nil {
		panic(err) // (f) with (1) always broadcasts
	}
	return p
}

// sumOut overwrites t (NumSrc x F) with, for every source u, the sum over
// its out-edges of ds[e] b[v]: an SpMM over the reversed graph.
func (k *distMultKernel[T]) sumOut(t, ds []T) {
	spmm.Forward(t, k.g.Reverse(), spmm.Mul, spmm.Sum, k.b, ds, k.scalarPlan(), nil)
}

// gradNodes overwrites out with the gradient with respect to a (bySrc: for
// every source u, sum over its out-edges of ds[e] w[r] * b[v]) or to b (the
// mirror image over the CSC). Rows run in parallel; each sums its edges in
// storage (edge-ID) order, in blocks of walkBlock whose scalars (gradient,
// relation) are gathered and whose other endpoints' rows are touched first.
func (k *distMultKernel[T]) gradNodes(out, ds []T, bySrc bool) {
	if k.single() {
		if bySrc {
			// w * (sum over out-edges of ds[e] b[v]).
			k.sumOut(out, ds)
			w := k.w
			parallel.For(len(out)/k.f, max(1, pairGrain/k.f), func(lo, hi int) {
				for i := lo * k.f; i < hi*k.f; i++ {
					out[i] *= w[i%k.f]
				}
			})
			return
		}
		// Sum over in-edges of ds[e] (a[u] * w).
		spmm.Forward(out, k.g, spmm.Mul, spmm.Sum, k.scaled(), ds, k.scalarPlan(), nil)
		return
	}
	c, y := k.g.CSC(), k.a
	if bySrc {
		c, y = k.g.CSR(), k.b
	}
	f := k.f
	parallel.For(c.NumRows(), max(1, pairGrain/(8*f)), func(lo, hi int) {
		var coef [walkBlock]T
		var rels [walkBlock]int32
		clear(out[lo*f : hi*f])
		n := lo
		next := c.Indptr[n+1]
		p0, p1 := int(c.Indptr[lo]), int(c.Indptr[hi])
		for q0 := p0; q0 < p1; q0 += walkBlock {
			q1 := min(q0+walkBlock, p1)
			other, eids := c.Indices[q0:q1], c.EIDs[q0:q1]
			for i, e := range eids {
				coef[i], rels[i] = ds[e], k.rel[e]
			}
			touchRows(y, other, f)
			for p := q0; p < q1; p++ {
				for int64(p) >= next {
					n++
					next = c.Indptr[n+1]
				}
				row := out[n*f : (n+1)*f]
				o, r := int(other[p-q0]), int(rels[p-q0])
				yr, wr := y[o*f:(o+1)*f], k.w[r*f:(r+1)*f]
				yr, wr = yr[:len(row)], wr[:len(row)]
				g := coef[p-q0]
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
	if k.single() {
		// sum_u a[u] * (sum over u's out-edges of ds[e] b[v]).
		t := make([]T, len(k.a))
		k.sumOut(t, ds)
		f := k.f
		parallel.Sum(out, len(k.a)/f, 256, func(acc []T, lo, hi int) {
			for u := lo; u < hi; u++ {
				ar, tr := k.a[u*f:(u+1)*f], t[u*f:(u+1)*f]
				for i := range acc {
					acc[i] += ar[i] * tr[i]
				}
			}
		})
		return
	}
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
