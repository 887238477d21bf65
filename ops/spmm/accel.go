package spmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// Drivers of the float32 AVX2 kernels (rows_amd64.s for sums, fold_amd64.s
// for max and min). A kernel call folds into one output row segment the
// rows of its in-edges, in edge order, and prefetches the source rows of the
// edges prefetchDist positions ahead in the CSC, across row boundaries:
// gathering source rows from a feature matrix larger than the cache is bound
// by memory latency, not arithmetic. For sums, the last f%8 columns, which
// do not fill a vector, come from a second vector pass over the row's last 8
// columns into scratch, right after its main pass (the gathered rows are
// still cached), of which the new columns are kept; for max and min they
// are done in Go.

// Tuning of the AVX2 paths, chosen with the 100k-node, 10M-edge benchmark
// (bench_test.go); the figures are in TUNING.md at the repository root.
const (
	// prefetchDist is how many edges ahead source rows are prefetched:
	// far enough ahead to hide a memory miss behind the rows being summed,
	// near enough that the prefetched lines are still cached when used.
	// Too short a distance leaves latency exposed, too long evicts.
	prefetchDist = 48
	// copyTile is the number of columns per pass of a copy_u sum. Passes
	// of 64 columns use the kernel whose sums stay in registers, and beat
	// both one pass over a wide row and many narrow passes.
	copyTile = 64
	// scaledTile is the number of columns per pass of a scaled sum. Passes
	// of 64 columns keep the sums in registers and a smaller share of x in
	// cache; they reload the edge weights, a cache miss per edge when edge
	// IDs are in random order, and still beat one pass over all columns.
	scaledTile = 64
)

// sumAccel runs the AVX2 version of a Sum path over rows [lo, hi), whose
// rows it expects cleared, when one applies, and reports whether it did.
func sumAccel[T num.Float](out []T, c *graph.Compressed, l *layout, path sumPath, u, e []T, lo, hi int) bool {
	if !useAVX2 || l.outLen < 8 {
		return false
	}
	o32, ok := any(out).([]float32)
	if !ok {
		return false
	}
	u32, _ := any(u).([]float32)
	e32, _ := any(e).([]float32)
	switch {
	case path == sumCopyU:
		sumCopyF32(o32, u32, c.Indptr, c.Indices, l.outLen, lo, hi)
		return true
	case path == sumCopyE:
		// Edge IDs are int32 like source IDs: copy_e gathers edge rows
		// through them with the same kernel.
		sumCopyF32(o32, e32, c.Indptr, c.EIDs, l.outLen, lo, hi)
		return true
	case path == sumScaled && (l.rhsLen == 1 || l.block%8 == 0):
		sumScaledF32(o32, u32, e32, c, l.outLen, l.rhsLen, l.block, lo, hi)
		return true
	case path == sumScaled:
		sumPermScaledF32(o32, u32, e32, c, l.outLen, l.rhsLen, l.block, lo, hi)
		return true
	}
	return false
}

// sumCopyF32 adds to out rows [lo, hi) the sums of the rows idx[p] of x (f
// columns) over the positions p of each row of the view with row pointers
// indptr: copy_u with the view's Indices, copy_e with its EIDs.
func sumCopyF32(out, x []float32, indptr []int64, idx []int32, f, lo, hi int) {
	end := int(indptr[hi])
	if end == int(indptr[lo]) {
		return // no edges: the rows stay zero
	}
	w8 := f &^ 7
	var tail [8]float32
	for col := 0; col < w8; col += copyTile {
		tw := min(copyTile, w8-col)
		last := col+tw == w8 && w8 < f
		for v := lo; v < hi; v++ {
			s, t := int(indptr[v]), int(indptr[v+1])
			if s < t {
				addRowsF32(&out[v*f+col], &x[col], &idx[s], t-s, end-s, f*4, tw*4, prefetchDist)
				if last {
					tail = [8]float32{}
					addRowsF32(&tail[0], &x[f-8], &idx[s], t-s, end-s, f*4, 32, prefetchDist)
					copy(out[v*f+w8:v*f+f], tail[8-(f-w8):])
				}
			}
		}
	}
}

// sumScaledF32 adds to out rows [lo, hi) the sums of rows of x scaled by
// edge weights: e rows of h weights, one per block of b columns. Each
// 8-column chunk must share one weight (h == 1 or b%8 == 0).
//
// Rows wider than a pass take several. Through a view whose edge IDs follow
// its order (Ordered), every pass goes over all the rows, so that a pass
// needs only its share of x in cache. Otherwise each edge's weights are a
// cache miss, and each row goes through all its passes before the next, so
// that the passes after the first find its weights cached (faster than
// pass by pass there, slower through an ordered view; TUNING.md).
func sumScaledF32(out, x, e []float32, c *graph.Compressed, f, h, b, lo, hi int) {
	indptr, idx, eids := c.Indptr, c.Indices, c.EIDs
	end := int(indptr[hi])
	if end == int(indptr[lo]) {
		return
	}
	w8 := f &^ 7
	tiles := (w8 + scaledTile - 1) / scaledTile
	const chunks = scaledTile / 8
	woff := make([]int64, tiles*chunks) // weight offsets of the chunks, per pass
	wo := make([]*int64, tiles)
	for i := range tiles {
		col := i * scaledTile
		for ch := range min(scaledTile, w8-col) / 8 {
			if h > 1 {
				woff[i*chunks+ch] = int64((col + 8*ch) / b * 4)
			}
		}
		if h > 1 || min(scaledTile, w8-col) != 64 {
			wo[i] = &woff[i*chunks] // else nil: the kernel's one-weight-per-edge loop
		}
	}
	var tail [8]float32
	var tailOff [1]int64
	// pass adds pass i over the columns of row v, and then, after the last
	// pass, the columns past the last full vector (only when h == 1, one
	// weight per edge): a vector pass over the row's last 8 columns into
	// scratch, of which the new ones are kept.
	pass := func(v, i int) {
		s, t := int(indptr[v]), int(indptr[v+1])
		if s == t {
			return
		}
		col := i * scaledTile
		addScaledRowsF32(&out[v*f+col], &x[col], &idx[s], t-s, end-s, f*4, min(scaledTile, w8-col)*4, prefetchDist, &e[0], &eids[s], h*4, wo[i])
		if i == tiles-1 && w8 < f {
			tail = [8]float32{}
			addScaledRowsF32(&tail[0], &x[f-8], &idx[s], t-s, end-s, f*4, 32, prefetchDist, &e[0], &eids[s], h*4, &tailOff[0])
			copy(out[v*f+w8:v*f+f], tail[8-(f-w8):])
		}
	}
	eachPass(c.Ordered, lo, hi, tiles, pass)
}

// eachPass calls pass(v, i) for every row v in [lo, hi) and every pass i
// of tiles: pass by pass over all the rows through an ordered view, row by
// row otherwise (see sumScaledF32).
func eachPass(ordered bool, lo, hi, tiles int, pass func(v, i int)) {
	if ordered {
		for i := range tiles {
			for v := lo; v < hi; v++ {
				pass(v, i)
			}
		}
		return
	}
	for v := lo; v < hi; v++ {
		for i := range tiles {
			pass(v, i)
		}
	}
}

// extremeAccel runs copy_u Max or Min over rows [lo, hi) with AVX2, when
// it applies, and reports whether it did.
func extremeAccel[T num.Float](out []T, arg []int64, u []T, c *graph.Compressed, f, lo, hi int, isMax bool) bool {
	if !useAVX2 || f < 8 {
		return false
	}
	o32, ok := any(out).([]float32)
	if !ok {
		return false
	}
	u32 := any(u).([]float32)
	indptr, idx, eids := c.Indptr, c.Indices, c.EIDs
	end := int(indptr[hi])
	w8 := f &^ 7
	isMin := 0
	if !isMax {
		isMin = 1
	}
	for v := lo; v < hi; v++ {
		o := o32[v*f:][:f]
		var a []int64
		var ap *int64
		if arg != nil {
			a = arg[v*f:][:f]
			ap = &a[0]
		}
		s, t := int(indptr[v]), int(indptr[v+1])
		if s == t {
			clearExtreme(o, a)
			continue
		}
		copy(o, u32[int(idx[s])*f:][:f])
		for k := range a {
			a[k] = int64(eids[s])
		}
		if s++; s == t {
			continue
		}
		foldRowsF32(&o[0], ap, &u32[0], &idx[s], &eids[s], t-s, end-s, f*4, w8*4, prefetchDist, isMin)
		if w8 < f {
			var at []int64
			if a != nil {
				at = a[w8:]
			}
			if isMax {
				maxRows(o[w8:], at, u32[w8:], idx[s:t], eids[s:t], f)
			} else {
				minRows(o[w8:], at, u32[w8:], idx[s:t], eids[s:t], f)
			}
		}
	}
	return true
}
