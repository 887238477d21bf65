package sddmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// Drivers of GATv2's float32 AVX2 kernels (gatv2_amd64.s): for each
// destination (or, for the gradient of ZL, each source) the row of that
// node fixed and the rows of the other ends gathered; one call over a
// chunk of nodes where the kernels keep rows in registers (inRegs), one
// call per node otherwise. The kernels do
// no bounds checks: the operands have been checked against the graph, whose
// indices are in range.

// gatv2Args is the argument block of the kernels, which read its fields
// at the offsets gatv2_amd64.s defines (TestGATv2ArgsLayout checks them).
type gatv2Args struct {
	fixed   *float32 // the row of the group's node (ZR[v], or ZL[u])
	table   *float32 // the table of gathered rows (ZL, or ZR)
	a       *float32
	ef, we  *float32 // nil without edge features
	idx     *int32   // the group's gathered rows
	eids    *int32   // and edge IDs
	n       int      // edges in the group
	row     int      // bytes per row: 4*H*F
	f, h, d int
	slope   float32
	_       float32
	scratch *float32 // forward: the products, padded to groups of 8 heads with zeros; backward: m
	out     *float32 // forward: the scores
	ds      *float32 // backward: the score gradients
	acc     *float32 // backward: the node's gradient row, added to
	da      *float32 // backward: partial sum of dA, or nil
	def     *float32 // backward: dEF, or nil
	dwe     *float32 // backward: partial sum of dWE, or nil
	mode    int      // F = 1, 2, 4, 8, or another multiple of 8: 0 to 4
	k       int      // F/8
	compact *float32 // forward: 8 rows of 8 head sums over lanes (F a multiple of 8 above 8)
	tmp     *float32 // forward: 8 scores of a group of fewer than 8 heads
	avail   int      // edges in the index arrays from the group's first
	dist    int      // how many edges ahead to prefetch rows
	pfe     int      // 1: prefetch the rows of edges (scores or their gradients, edge features) too
	rec     *float32 // backward: the records (gatv2_mask.go), or nil
	rstride int      // bytes per record; 0 (gatv2BwdF32) writes none
	mcur    uintptr  // backward: the current edge's mask (the kernel's own)
	moff    int      // bytes before the mask in a record: 4*H
	indptr  *int64   // ranged kernels: the view's Indptr from the first node
	nodes   int      // ranged kernels: the nodes (at least one)
	idx0    *int32   // gatv2FwdF32, gatv2BwdF32: the view's Indices
	eids0   *int32   // and EIDs
	total   int      // and its edges
	astride int      // gatv2BwdF32: bytes between the rows of acc of consecutive nodes (0: one row)
	// The cursors of gatv2FwdF32 and gatv2BwdF32, which they set and move
	// on from indptr, idx0, eids0, fixed and acc: the kernels write no
	// pointer field (none of them is the only reference to its memory).
	cind, cidx, ceids, cfix, cacc uintptr
	left                          int // the nodes left
}

// gatv2Dist is how many edges ahead the kernels prefetch the gathered row
// and the row of scores or score gradients of an edge: both are random
// accesses on graphs in random edge order, and the kernels are bound by
// their latency.
const gatv2Dist = 16

// gatv2Mode returns the kernels' mode for heads of f features and whether
// the kernels apply to rows of w = H*f floats.
func gatv2Mode(f, w int) (int, bool) {
	if w%8 != 0 {
		return 0, false
	}
	switch {
	case f == 1:
		return 0, true
	case f == 2:
		return 1, true
	case f == 4:
		return 2, true
	case f == 8:
		return 3, true
	case f%8 == 0:
		return 4, true
	}
	return 0, false
}

// f32 returns k as float32 operands and whether the AVX2 kernels apply to it.
func (k *GATv2[T]) f32() (*GATv2[float32], bool) {
	kf, ok := any(k).(*GATv2[float32])
	if !ok || !useAVX2 {
		return nil, false
	}
	_, ok = gatv2Mode(k.Feat, k.Heads*k.Feat)
	return kf, ok
}

// accel returns k's float32 view and an argument block for it (args), or
// false when the AVX2 kernel does not apply (f32).
func (k *GATv2[T]) accel() (*GATv2[float32], *gatv2Args, bool) {
	kf, ok := k.f32()
	if !ok {
		return nil, nil, false
	}
	return kf, k.args(kf), true
}

// args returns the argument block of k with its constant fields set and
// scratch for one goroutine.
func (k *GATv2[T]) args(kf *GATv2[float32]) *gatv2Args {
	w := k.Heads * k.Feat
	mode, _ := gatv2Mode(k.Feat, w)
	groups := (k.Heads + 7) / 8
	// The forward reads the products of whole groups of 8 heads: the
	// scratch beyond w stays zero.
	buf := make([]float32, groups*8*k.Feat+64+8)
	a := &gatv2Args{
		a: &kf.A[0], row: 4 * w, f: k.Feat, h: k.Heads, d: k.EDim, slope: kf.Slope,
		scratch: &buf[0], compact: &buf[groups*8*k.Feat], tmp: &buf[groups*8*k.Feat+64],
		mode: mode, k: k.Feat / 8, dist: gatv2Dist, moff: 4 * k.Heads,
	}
	if k.EDim > 0 {
		a.ef, a.we = &kf.EF[0], &kf.WE[0]
	}
	return a
}

// group sets the per-call fields of a for the rows [p, q) of c, with fixed
// the row of the group's node.
func (a *gatv2Args) group(c *graph.Compressed, p, q int64, fixed *float32) {
	a.fixed, a.idx, a.eids, a.n = fixed, &c.Indices[p], &c.EIDs[p], int(q-p)
	a.avail = len(c.Indices) - int(p)
	a.pfe = 1
	if c.Ordered {
		a.pfe = 0 // the edges' rows are read in memory order
	}
}

// inRegs reports whether the kernels keep rows of a in registers (8 heads
// of 8 or of 2 features, no edge features), the shapes for which one call
// over a range of nodes is faster than one call per node. For the others,
// the loops of the general shapes over a range of nodes measured no
// faster than a call per node, and the drivers call them one node at a
// time.
func (a *gatv2Args) inRegs() bool {
	return a.h == 8 && a.d == 0 && (a.f == 8 || a.f == 2)
}

// ranged sets the fields of a for a call of gatv2FwdF32 or gatv2BwdF32
// over the nodes [lo, hi) of c (lo < hi), with fixed the first node's row.
func (a *gatv2Args) ranged(c *graph.Compressed, lo, hi int, fixed *float32) {
	a.fixed, a.indptr, a.nodes = fixed, &c.Indptr[lo], hi-lo
	a.idx0, a.eids0, a.total = nil, nil, len(c.Indices)
	if len(c.Indices) > 0 {
		a.idx0, a.eids0 = &c.Indices[0], &c.EIDs[0]
	}
	a.pfe = 1
	if c.Ordered {
		a.pfe = 0 // the edges' rows are read in memory order
	}
}

// scoresAccel is Scores with the AVX2 kernel, and reports whether it applied.
func (k *GATv2[T]) scoresAccel(out []T, c *graph.Compressed) bool {
	kf, ok := k.f32()
	if !ok {
		return false
	}
	o := any(out).([]float32)
	w := k.Heads * k.Feat
	if len(c.Indices) == 0 {
		return true
	}
	parallel.For(c.NumRows(), k.rowGrain(c), func(lo, hi int) {
		if lo >= hi {
			return
		}
		a := k.args(kf)
		a.table, a.out = &kf.ZL[0], &o[0]
		if a.inRegs() {
			a.ranged(c, lo, hi, &kf.ZR[lo*w])
			gatv2FwdF32(a)
			return
		}
		for v := lo; v < hi; v++ {
			if c.Indptr[v] < c.Indptr[v+1] {
				a.ranged(c, v, v+1, &kf.ZR[v*w])
				gatv2FwdF32(a)
			}
		}
	})
	return true
}

// dstAccel is dstRows with the AVX2 kernel, and reports whether it applied.
func (k *GATv2[T]) dstAccel(dzr, pa, def, pwe, ds, rec []T, c *graph.Compressed, lo, hi int) bool {
	kf, a, ok := k.accel()
	if !ok {
		return false
	}
	w := k.Heads * k.Feat
	a.table, a.ds = &kf.ZL[0], &any(ds).([]float32)[0]
	a.da, a.def, a.dwe = ptr(pa), ptr(def), ptr(pwe)
	if rec != nil {
		a.rec, a.rstride = ptr(rec), 4*recordLen[float32](k.Heads, w)
	}
	var out []float32
	if dzr != nil {
		out = any(dzr).([]float32)
	}
	a.backward(c, lo, hi, w, out, kf.ZR)
	return true
}

// srcAccel is GradZL over the sources [lo, hi) with the AVX2 kernel, and
// reports whether it applied.
func (k *GATv2[T]) srcAccel(out, ds []T, c *graph.Compressed, lo, hi int) bool {
	kf, a, ok := k.accel()
	if !ok {
		return false
	}
	w := k.Heads * k.Feat
	o := any(out).([]float32)
	a.table, a.ds = &kf.ZR[0], &any(ds).([]float32)[0]
	a.backward(c, lo, hi, w, o, kf.ZL)
	return true
}

// backward runs the backward kernel over the groups of the nodes [lo, hi)
// of c, each node's own row that of rows (w wide), accumulating node v's
// into row v of out, or into scratch when out is nil (cleared first; left
// 0 for a node without edges): in one call for rows in registers (inRegs)
// of out, one call per node otherwise.
func (a *gatv2Args) backward(c *graph.Compressed, lo, hi, w int, out, rows []float32) {
	if lo >= hi {
		return
	}
	if out != nil && a.inRegs() {
		a.ranged(c, lo, hi, &rows[lo*w])
		a.acc, a.astride = &out[lo*w], 4*w
		gatv2BwdF32(a)
		return
	}
	var own *float32
	if out == nil {
		own = &make([]float32, w)[0]
	}
	for v := lo; v < hi; v++ {
		a.ranged(c, v, v+1, &rows[v*w])
		a.acc, a.astride = own, 0
		if out != nil {
			a.acc = &out[v*w]
		}
		gatv2BwdF32(a)
	}
}

// ptr returns the first element of x, a float32 slice, or nil when x is
// empty.
func ptr[T num.Float](x []T) *float32 {
	if len(x) == 0 {
		return nil
	}
	return &any(x).([]float32)[0]
}

// maskAccel is maskRows with the AVX2 kernel, and reports whether it
// applied.
func (k *GATv2[T]) maskAccel(out, rec []T, c *graph.Compressed, lo, hi int) bool {
	_, a, ok := k.accel()
	if !ok {
		return false
	}
	w := k.Heads * k.Feat
	o := any(out).([]float32)
	a.rec, a.rstride = ptr(rec), 4*recordLen[float32](k.Heads, w)
	if k.Heads == 8 && (k.Feat == 8 || k.Feat == 2) && len(c.EIDs) > 0 && lo < hi {
		// Rows in registers, every node's row set by the kernel.
		a.eids, a.avail = &c.EIDs[0], len(c.EIDs)
		a.indptr, a.nodes, a.acc = &c.Indptr[lo], hi-lo, &o[lo*w]
		gatv2MaskRowsF32(a)
		return true
	}
	for u := lo; u < hi; u++ {
		row := o[u*w : (u+1)*w]
		clear(row)
		if p, q := c.Indptr[u], c.Indptr[u+1]; p < q {
			a.group(c, p, q, nil)
			a.acc = &row[0]
			gatv2MaskF32(a)
		}
	}
	return true
}
