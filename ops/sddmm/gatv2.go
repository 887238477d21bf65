package sddmm

import (
	"fmt"
	"unsafe"

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
// of the scores, dS (one value per edge and head). They work one edge at a
// time with t in scratch of H*F elements and recompute it, so nothing of
// size E x H x F is ever stored: the forward reads three node rows (and an
// edge row) per edge and writes H numbers.
//
// Edges are walked by destination (the CSC rows, as GAT's attention walks
// them): the destination's row stays in cache while the sources' rows are
// gathered. GradDst computes every gradient but ZL's in one such pass;
// GradZL walks the sources (CSR rows). (Scores in Go walk the edges in ID
// order, which writes the scores in memory order and changes no bits.) The gradient of LeakyReLU is 1
// where t > 0 and Slope elsewhere (PyTorch's choice at 0). Sums over edges
// onto nodes add the edges of a row in CSR or CSC order, and sums onto the
// parameters A and WE add per-chunk partial sums in a fixed order, so every
// result has the same bits for any GOMAXPROCS.
//
// Sums over the F features of a head are balanced trees for F of 2, 4 and
// 8 (eight lanes summed in order, then a tree, for multiples of 8), so
// that the float32 AVX2 kernels (gatv2_amd64.s), which apply when H*F is a
// multiple of 8 and F is 1, 2, 4 or a multiple of 8, give the bits of the
// Go loops.
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

// Scores overwrites out (NumEdges*H) with the scores.
func (k *GATv2[T]) Scores(out []T) {
	k.check()
	checkLen("scores", out, k.G.NumEdges()*k.Heads)
	c := k.G.CSC()
	if k.scoresAccel(out, c) {
		return
	}
	// The Go loops walk the edges in ID order, writing the scores in
	// memory order: every score is computed on its own, so the order
	// changes no bits.
	w := k.Heads * k.Feat
	src, dst := k.G.COO()
	parallel.For(len(src), max(1, grain*16/max(1, w)), func(lo, hi int) {
		t := make([]T, w)
		for e := lo; e < hi; e++ {
			u, v := int(src[e]), int(dst[e])
			k.pre(t, e, k.ZL[u*w:(u+1)*w], k.ZR[v*w:(v+1)*w])
			k.score(out[e*k.Heads:(e+1)*k.Heads], t)
		}
	})
}

// GradDst computes, in one pass over the in-edges of every destination,
// the gradients with respect to ZR (dzr, NumDst*H*F), A (da, H*F), EF (def,
// NumEdges*D) and WE (dwe, D*H*F), overwriting those that are not nil, from
// the gradient of the scores ds.
func (k *GATv2[T]) GradDst(dzr, da, def, dwe, ds []T) { k.gradDst(dzr, da, def, dwe, ds, nil) }

// GradAll computes every gradient: those of GradDst, and the gradient with
// respect to ZL (dzl, NumSrc*H*F) unless dzl is nil, with the bits of
// GradDst and GradZL. On a graph whose edges are numbered by destination
// (its CSC view Ordered, as ReorderEdges(graph.ByDst) makes it), the pass
// over the destinations writes for every edge, in edge-ID order, so in
// memory order, a record of its H score gradients and of which elements of
// its t are positive, one bit each (NumEdges*(4*H+H*F/8) bytes of scratch
// in float32: a copy of dS and a thirty-second of t); the pass over the
// sources then forms the per-edge gradients from one record per edge and
// A, without gathering the rows of ZR, and sums them in CSR order as GradZL
// does. On other graphs the records would be written in random order,
// which costs about what gathering the rows saves, and GradAll is GradDst
// and GradZL; so it is where the records would take more than
// gatv2RecordCap bytes.
func (k *GATv2[T]) GradAll(dzl, dzr, da, def, dwe, ds []T) {
	if dzl == nil {
		k.gradDst(dzr, da, def, dwe, ds, nil)
		return
	}
	var zero T
	bytes := int64(k.G.NumEdges()) * int64(recordLen[T](k.Heads, k.Heads*k.Feat)) * int64(unsafe.Sizeof(zero))
	if (!k.G.CSC().Ordered || bytes > gatv2RecordCap) && !gatv2MaskAlways {
		k.gradDst(dzr, da, def, dwe, ds, nil)
		k.GradZL(dzl, ds)
		return
	}
	c := k.G.CSR()
	checkLen("node gradient", dzl, c.NumRows()*k.Heads*k.Feat)
	rec := getRecords[T](k.G.NumEdges() * recordLen[T](k.Heads, k.Heads*k.Feat))
	defer putRecords(rec)
	k.gradDst(dzr, da, def, dwe, ds, *rec)
	parallel.For(c.NumRows(), k.rowGrain(c), func(lo, hi int) {
		k.maskRows(dzl, *rec, c, lo, hi)
	})
}

// gradDst is GradDst, which also writes the records of the edges into rec
// (recordLen elements per edge, by edge ID; gatv2_mask.go) unless rec is
// nil.
func (k *GATv2[T]) gradDst(dzr, da, def, dwe, ds []T, rec []T) {
	k.check()
	w, d := k.Heads*k.Feat, k.EDim
	c := k.G.CSC()
	checkLen("dS", ds, k.G.NumEdges()*k.Heads)
	if dzr != nil {
		checkLen("dZR", dzr, c.NumRows()*w)
	}
	if da != nil {
		checkLen("dA", da, w)
	}
	if def != nil {
		checkLen("dEF", def, k.G.NumEdges()*d)
	}
	if dwe != nil {
		checkLen("dWE", dwe, d*w)
	}
	if d == 0 {
		def, dwe = nil, nil
	}
	// The sums onto the parameters are partial sums per chunk of
	// destinations: [dA | dWE], those wanted.
	np := 0
	if da != nil {
		np += w
	}
	if dwe != nil {
		np += d * w
	}
	rows := func(part []T, lo, hi int) {
		var pa, pwe []T
		if da != nil {
			pa, part = part[:w], part[w:]
		}
		if dwe != nil {
			pwe = part[:d*w]
		}
		k.dstRows(dzr, pa, def, pwe, ds, rec, c, lo, hi)
	}
	if np == 0 {
		parallel.For(c.NumRows(), k.rowGrain(c), func(lo, hi int) { rows(nil, lo, hi) })
		return
	}
	sums := make([]T, np)
	parallel.Sum(sums, c.NumRows(), 64, rows)
	if da != nil {
		copy(da, sums[:w])
		sums = sums[w:]
	}
	if dwe != nil {
		copy(dwe, sums)
	}
}

// dstRows is GradDst over destinations [lo, hi), adding to the partial sums
// pa and pwe (nil when not wanted) and writing the edges' records into rec
// (unless nil).
func (k *GATv2[T]) dstRows(dzr, pa, def, pwe, ds, rec []T, c *graph.Compressed, lo, hi int) {
	if k.dstAccel(dzr, pa, def, pwe, ds, rec, c, lo, hi) {
		return
	}
	w, h, d := k.Heads*k.Feat, k.Heads, k.EDim
	rw := recordLen[T](h, w)
	t, m := make([]T, w), make([]T, w)
	var own []T
	if dzr == nil {
		own = make([]T, w)
	}
	for v := lo; v < hi; v++ {
		r := k.ZR[v*w : (v+1)*w]
		row := own
		if dzr != nil {
			row = dzr[v*w : (v+1)*w]
		}
		clear(row)
		for p := c.Indptr[v]; p < c.Indptr[v+1]; p++ {
			e, u := int(c.EIDs[p]), int(c.Indices[p])
			k.pre(t, e, k.ZL[u*w:(u+1)*w], r)
			g := ds[e*h : (e+1)*h]
			if rec != nil {
				r := rec[e*rw : (e+1)*rw]
				copy(r, g)
				setMask(maskOf(r, h, w), t)
			}
			if pa != nil {
				k.gradA(pa, t, g)
			}
			k.msg(m, t, g)
			for i, x := range m {
				row[i] += x
			}
			if def != nil {
				k.gradEF(def[e*d:(e+1)*d], m)
			}
			if pwe != nil {
				k.gradWE(pwe, m, e)
			}
		}
	}
}

// GradZL overwrites out (NumSrc*H*F) with the gradient with respect to ZL:
// for every source, the sum over its out-edges of the per-edge gradient.
func (k *GATv2[T]) GradZL(out, ds []T) {
	k.check()
	w, h := k.Heads*k.Feat, k.Heads
	c := k.G.CSR()
	checkLen("node gradient", out, c.NumRows()*w)
	checkLen("dS", ds, k.G.NumEdges()*k.Heads)
	parallel.For(c.NumRows(), k.rowGrain(c), func(lo, hi int) {
		if k.srcAccel(out, ds, c, lo, hi) {
			return
		}
		t, m := make([]T, w), make([]T, w)
		for u := lo; u < hi; u++ {
			l := k.ZL[u*w : (u+1)*w]
			row := out[u*w : (u+1)*w]
			clear(row)
			for p := c.Indptr[u]; p < c.Indptr[u+1]; p++ {
				e, v := int(c.EIDs[p]), int(c.Indices[p])
				k.pre(t, e, l, k.ZR[v*w:(v+1)*w])
				k.msg(m, t, ds[e*h:(e+1)*h])
				for i, x := range m {
					row[i] += x
				}
			}
		}
	})
}

// GradZR overwrites out (NumDst*H*F) with the gradient with respect to ZR:
// for every destination, the sum over its in-edges.
func (k *GATv2[T]) GradZR(out, ds []T) { k.GradDst(out, nil, nil, nil, ds) }

// GradA overwrites out (H*F) with the gradient with respect to A: the sum
// over edges of dS[e,h] LeakyReLU(t[e,h,f]).
func (k *GATv2[T]) GradA(out, ds []T) { k.GradDst(nil, out, nil, nil, ds) }

// GradEF overwrites out (NumEdges*D) with the gradient with respect to EF:
// for every edge, WE times its per-edge gradient.
func (k *GATv2[T]) GradEF(out, ds []T) {
	checkLen("dEF", out, k.G.NumEdges()*k.EDim)
	if k.EDim > 0 {
		k.GradDst(nil, nil, out, nil, ds)
	}
}

// GradWE overwrites out (D*H*F) with the gradient with respect to WE: the
// sum over edges of the outer product of the edge's features and its
// per-edge gradient.
func (k *GATv2[T]) GradWE(out, ds []T) {
	checkLen("dWE", out, k.EDim*k.Heads*k.Feat)
	if k.EDim > 0 {
		k.GradDst(nil, nil, nil, out, ds)
	}
}

// rowGrain is the number of rows of c worth handing to another goroutine:
// about grain edges' worth of row elements.
func (k *GATv2[T]) rowGrain(c *graph.Compressed) int {
	n := c.NumRows()
	if n == 0 {
		return 1
	}
	work := (int(c.Indptr[n]) + n) * max(1, k.Heads*k.Feat)
	return max(1, int(int64(n)*int64(grain)*16/int64(max(1, work))))
}

// gatv2MaskAlways makes GradAll write the records on every graph, not only
// on those numbered by destination: the tests' switch.
var gatv2MaskAlways = false

// gatv2RecordCap is the most bytes of records GradAll allocates (a 40-byte
// record per edge for 8 heads of 8 float32 features: 27M edges); on larger
// graphs the scratch would add too much to the backward's peak memory, and
// GradAll gathers the rows instead.
const gatv2RecordCap = 1 << 30

// checkLen panics unless x has n elements.
func checkLen[T num.Float](what string, x []T, n int) {
	if len(x) != n {
		panic(fmt.Sprintf("sddmm: GATv2 %s has %d elements, want %d", what, len(x), n))
	}
}
