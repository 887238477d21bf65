package edgesoftmax

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// Drivers of the float32 AVX2 kernels (rows_amd64.s): one kernel call per
// group, which makes all the passes over the group's rows in vector
// registers, eight columns at a time (the last block masked when the width
// is not a multiple of 8), several times faster than the Go loops at widths
// of 8 and more (TUNING.md). The kernels do no bounds
// checks: the callers have checked the lengths of the rows against the
// graph, whose edge IDs are below its edge count.

// prefetchDist is how many edges ahead, in the view's order, the kernels
// prefetch rows; 0 turns prefetching off. On the 10M-edge benchmark
// (bench_test.go) prefetching gained nothing on edges in random order (the
// first pass over a group is a stream of independent loads, whose misses
// the processor overlaps by itself; the time is bound by the latency of
// those misses and of the page walks of their TLB misses), and cost time on
// edges in group order, where the rows are contiguous (TUNING.md).
var prefetchDist = 0

// useNarrow selects the kernels of rows of 2 and 4 floats
// (narrow_amd64.s), which pack the rows of several edges into a vector;
// tests turn it off to compare them with the general kernels, whose
// results they are bit for bit.
var useNarrow = true

// forwardAccel runs forwardRows with the AVX2 kernel when one applies
// (float32 on a machine with AVX2 and FMA), and reports whether it did.
func forwardAccel[T num.Float](out []T, c *graph.Compressed, score []T, w, lo, hi int) bool {
	if !useAVX2 {
		return false
	}
	o32, ok := any(out).([]float32)
	if !ok {
		return false
	}
	s32 := any(score).([]float32)
	indptr, eids := c.Indptr[lo:hi+1], c.EIDs
	end := indptr[len(indptr)-1]
	for r := range hi - lo {
		a, b := indptr[r], indptr[r+1]
		if a == b {
			continue
		}
		switch {
		case w == 2 && useNarrow:
			forwardGroup2F32(&o32[0], &s32[0], &eids[a], int(b-a))
		case w == 4 && useNarrow:
			forwardGroup4F32(&o32[0], &s32[0], &eids[a], int(b-a))
		default:
			forwardGroupF32(&o32[0], &s32[0], &eids[a], int(b-a), int(end-a), w, prefetchDist)
		}
	}
	return true
}

// backwardAccel runs backwardRows with the AVX2 kernel when one applies, as
// forwardAccel, and reports whether it did.
func backwardAccel[T num.Float](ds []T, c *graph.Compressed, y, dy []T, w, lo, hi int) bool {
	if !useAVX2 {
		return false
	}
	d32, ok := any(ds).([]float32)
	if !ok {
		return false
	}
	y32, dy32 := any(y).([]float32), any(dy).([]float32)
	indptr, eids := c.Indptr[lo:hi+1], c.EIDs
	end := indptr[len(indptr)-1]
	for r := range hi - lo {
		a, b := indptr[r], indptr[r+1]
		if a == b {
			continue
		}
		switch {
		case w == 2 && useNarrow:
			backwardGroup2F32(&d32[0], &y32[0], &dy32[0], &eids[a], int(b-a))
		case w == 4 && useNarrow:
			backwardGroup4F32(&d32[0], &y32[0], &dy32[0], &eids[a], int(b-a))
		default:
			backwardGroupF32(&d32[0], &y32[0], &dy32[0], &eids[a], int(b-a), int(end-a), w, prefetchDist)
		}
	}
	return true
}
