package sddmm

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// GATv2 holds the operands of GATv2's attention logits (Brody et al., "How
// Attentive are Graph Attention Networks?", ICLR 2022): for every edge
// e = (u -> v) and head h, with t the per-edge vector
//
//	t[e,h,f]   = ZL[u,h,f] + ZR[v,h,f] + sum_d EF[e,d] WE[d,h,f]
//	score[e,h] = sum_f A[h,f] LeakyReLU(t[e,h,f])
//
// (the edge term only when EDim > 0). The methods compute the scores and
// the gradients of a loss with respect to every operand from the gradient
// of the scores, dS (one value per edge and head). Each works one edge at a
// time with t in scratch of H*F elements and recomputes it, so nothing of
// size E x H x F is ever stored: the forward reads three node rows (and an
// edge row) per edge and writes H numbers.
//
// The gradient of LeakyReLU is 1 where t > 0 and Slope elsewhere (PyTorch's
// choice at 0). Sums over edges onto nodes walk the CSR (sources) or CSC
// (destinations) rows in edge-ID order, and sums onto the parameters A and
// WE add per-chunk partial sums in a fixed order, so every result has the
// same bits for any GOMAXPROCS.
//
// The methods panic when a length does not match: internal invariants that
// the op layer checks before calling.
type GATv2[T num.Float] struct {
	G           *graph.Graph
	Heads, Feat int // H and F
	Slope       T
	ZL, ZR, A   []T // NumSrc*H*F, NumDst*H*F and H*F
	EDim        int // D, 0 without edge features
	EF, WE      []T // NumEdges*D and D*H*F, or nil
}

// check panics unless the operands match the graph and sizes.
func (k *GATv2[T]) check() {
	w := k.Heads * k.Feat
	want := []struct {
		name string
		got  int
		n    int
	}{
		{"ZL", len(k.ZL), k.G.NumSrc() * w},
		{"ZR", len(k.ZR), k.G.NumDst() * w},
		{"A", len(k.A), w},
		{"EF", len(k.EF), k.G.NumEdges() * k.EDim},
		{"WE", len(k.WE), k.EDim * w},
	}
	for _, c := range want {
		if c.got != c.n {
			panic(fmt.Sprintf("sddmm: GATv2 %s has %d elements, want %d", c.name, c.got, c.n))
		}
	}
}

// pre sets t to the vector before the LeakyReLU of edge e = (u -> v).
func (k *GATv2[T]) pre(t []T, e, u, v int) {
	w := len(t)
	l, r := k.ZL[u*w:(u+1)*w], k.ZR[v*w:(v+1)*w]
	for i := range t {
		t[i] = l[i] + r[i]
	}
	for d := range k.EDim {
		x := k.EF[e*k.EDim+d]
		for i, y := range k.WE[d*w : (d+1)*w] {
			t[i] += x * y
		}
	}
}

// msg sets m to the gradient of the loss with respect to t of edge e: the
// score gradients dS[e,h] times A and the LeakyReLU's slope, t in place.
func (k *GATv2[T]) msg(m, t, ds []T, e int) {
	f := k.Feat
	for h := range k.Heads {
		g := ds[e*k.Heads+h]
		for j := h * f; j < (h+1)*f; j++ {
			d := g * k.A[j]
			if !(t[j] > 0) {
				d *= k.Slope
			}
			m[j] = d
		}
	}
}

// Scores overwrites out (NumEdges*H) with the scores.
func (k *GATv2[T]) Scores(out []T) {
	k.check()
	checkLen("scores", out, k.G.NumEdges()*k.Heads)
	src, dst := k.G.COO()
	w, f := k.Heads*k.Feat, k.Feat
	parallel.For(len(src), grain/max(1, w), func(lo, hi int) {
		t := make([]T, w)
		for e := lo; e < hi; e++ {
			k.pre(t, e, int(src[e]), int(dst[e]))
			for h := range k.Heads {
				var s T
				for j := h * f; j < (h+1)*f; j++ {
					x := t[j]
					if !(x > 0) {
						x *= k.Slope
					}
					s += k.A[j] * x
				}
				out[e*k.Heads+h] = s
			}
		}
	})
}

// GradZL overwrites out (NumSrc*H*F) with the gradient with respect to ZL:
// for every source, the sum over its out-edges of the per-edge gradient.
func (k *GATv2[T]) GradZL(out, ds []T) { k.gradNodes(out, ds, k.G.CSR(), true) }

// GradZR overwrites out (NumDst*H*F) with the gradient with respect to ZR:
// for every destination, the sum over its in-edges.
func (k *GATv2[T]) GradZR(out, ds []T) { k.gradNodes(out, ds, k.G.CSC(), false) }

// gradNodes sums the per-edge gradients over the rows of c (CSR when bySrc,
// CSC otherwise) into out, one row per node.
func (k *GATv2[T]) gradNodes(out, ds []T, c *graph.Compressed, bySrc bool) {
	k.check()
	w := k.Heads * k.Feat
	checkLen("node gradient", out, c.NumRows()*w)
	checkLen("dS", ds, k.G.NumEdges()*k.Heads)
	parallel.For(c.NumRows(), max(1, grain/max(1, w*8)), func(lo, hi int) {
		t, m := make([]T, w), make([]T, w)
		for n := lo; n < hi; n++ {
			row := out[n*w : (n+1)*w]
			clear(row)
			for p := c.Indptr[n]; p < c.Indptr[n+1]; p++ {
				e, other := int(c.EIDs[p]), int(c.Indices[p])
				u, v := n, other
				if !bySrc {
					u, v = other, n
				}
				k.pre(t, e, u, v)
				k.msg(m, t, ds, e)
				for i, x := range m {
					row[i] += x
				}
			}
		}
	})
}

// GradA overwrites out (H*F) with the gradient with respect to A: the sum
// over edges of dS[e,h] LeakyReLU(t[e,h,f]).
func (k *GATv2[T]) GradA(out, ds []T) {
	k.check()
	w, f := k.Heads*k.Feat, k.Feat
	checkLen("dA", out, w)
	checkLen("dS", ds, k.G.NumEdges()*k.Heads)
	src, dst := k.G.COO()
	parallel.Sum(out, len(src), 256, func(acc []T, lo, hi int) {
		t := make([]T, w)
		for e := lo; e < hi; e++ {
			k.pre(t, e, int(src[e]), int(dst[e]))
			for j, x := range t {
				if !(x > 0) {
					x *= k.Slope
				}
				acc[j] += ds[e*k.Heads+j/f] * x
			}
		}
	})
}

// GradEF overwrites out (NumEdges*D) with the gradient with respect to EF:
// for every edge, WE times its per-edge gradient.
func (k *GATv2[T]) GradEF(out, ds []T) {
	k.check()
	w, d := k.Heads*k.Feat, k.EDim
	checkLen("dEF", out, k.G.NumEdges()*d)
	checkLen("dS", ds, k.G.NumEdges()*k.Heads)
	src, dst := k.G.COO()
	parallel.For(len(src), max(1, grain/max(1, w)), func(lo, hi int) {
		t, m := make([]T, w), make([]T, w)
		for e := lo; e < hi; e++ {
			k.pre(t, e, int(src[e]), int(dst[e]))
			k.msg(m, t, ds, e)
			for i := range d {
				var s T
				for j, y := range k.WE[i*w : (i+1)*w] {
					s += m[j] * y
				}
				out[e*d+i] = s
			}
		}
	})
}

// GradWE overwrites out (D*H*F) with the gradient with respect to WE: the
// sum over edges of the outer product of the edge's features and its
// per-edge gradient.
func (k *GATv2[T]) GradWE(out, ds []T) {
	k.check()
	w, d := k.Heads*k.Feat, k.EDim
	checkLen("dWE", out, d*w)
	checkLen("dS", ds, k.G.NumEdges()*k.Heads)
	src, dst := k.G.COO()
	parallel.Sum(out, len(src), 256, func(acc []T, lo, hi int) {
		t, m := make([]T, w), make([]T, w)
		for e := lo; e < hi; e++ {
			k.pre(t, e, int(src[e]), int(dst[e]))
			k.msg(m, t, ds, e)
			for i := range d {
				x := k.EF[e*d+i]
				row := acc[i*w : (i+1)*w]
				for j, y := range m {
					row[j] += x * y
				}
			}
		}
	})
}

// checkLen panics unless x has n elements.
func checkLen[T num.Float](what string, x []T, n int) {
	if len(x) != n {
		panic(fmt.Sprintf("sddmm: GATv2 %s has %d elements, want %d", what, len(x), n))
	}
}
