package graph

import (
	"slices"

	"github.com/gnngo/gnn/internal/parallel"
)

// Compressed is a compressed sparse row view of a graph's edges: the edges of
// row r occupy positions Indptr[r] to Indptr[r+1]-1, in increasing edge-ID
// order. Indices holds the other endpoint of each edge and EIDs its edge ID.
// For CSR rows are sources and Indices destinations; for CSC the reverse.
//
// A Compressed is shared by the graph and must not be modified.
type Compressed struct {
	Indptr  []int64 // len rows+1
	Indices []int32 // len NumEdges
	EIDs    []int32 // len NumEdges; edge IDs fit int32 (MaxEdges)
	// Ordered reports that EIDs[p] == p for every p: edge IDs follow the
	// view's order (edges numbered by row, as ReorderEdges does), so
	// per-edge rows read through the view are read in memory order.
	Ordered bool
}

// NumRows returns the number of rows.
func (c *Compressed) NumRows() int { return len(c.Indptr) - 1 }

// Row returns the positions [lo, hi) of row r's edges.
func (c *Compressed) Row(r int) (lo, hi int64) { return c.Indptr[r], c.Indptr[r+1] }

// Degree returns the number of edges in row r.
func (c *Compressed) Degree(r int) int { return int(c.Indptr[r+1] - c.Indptr[r]) }

// parallelEdges is the edge count above which views are built by several
// goroutines; below it the single-threaded pass is faster.
const parallelEdges = 1 << 16

// compress groups the edges by row with a stable counting sort: O(E + rows).
// Above parallelEdges the count and scatter passes are split over fixed edge
// ranges, one per worker, with per-worker row counters; since worker w's
// edges precede worker w+1's in every row, the result is identical to the
// sequential one.
func compress(rows int, row, col []int32) *Compressed {
	c := compressCounting(rows, row, col)
	c.Ordered = slices.IsSorted(row)
	return c
}

// compressCounting is compress without the Ordered flag.
func compressCounting(rows int, row, col []int32) *Compressed {
	e := len(row)
	c := &Compressed{
		Indptr:  make([]int64, rows+1),
		Indices: make([]int32, e),
		EIDs:    make([]int32, e),
	}
	workers := parallel.Workers()
	if e < parallelEdges || workers == 1 {
		for _, r := range row {
			c.Indptr[r+1]++
		}
		for r := range rows {
			c.Indptr[r+1] += c.Indptr[r]
		}
		next := make([]int64, rows)
		copy(next, c.Indptr[:rows])
		for i, r := range row {
			p := next[r]
			next[r]++
			c.Indices[p] = col[i]
			c.EIDs[p] = int32(i)
		}
		return c
	}

	bounds := parallel.Split(e, workers)
	counts := make([][]int64, workers)
	parallel.Run(workers, func(w int) {
		cnt := make([]int64, rows)
		for _, r := range row[bounds[w]:bounds[w+1]] {
			cnt[r]++
		}
		counts[w] = cnt
	})
	// Turn per-worker counts into per-worker start offsets, row-major, then
	// worker-major within a row. Rows are split over workers too.
	rb := parallel.Split(rows, workers)
	parallel.Run(workers, func(w int) {
		for r := rb[w]; r < rb[w+1]; r++ {
			var total int64
			for k := range workers {
				total += counts[k][r]
			}
			c.Indptr[r+1] = total
		}
	})
	for r := range rows {
		c.Indptr[r+1] += c.Indptr[r]
	}
	parallel.Run(workers, func(w int) {
		for r := rb[w]; r < rb[w+1]; r++ {
			off := c.Indptr[r]
			for k := range workers {
				n := counts[k][r]
				counts[k][r] = off
				off += n
			}
		}
	})
	parallel.Run(workers, func(w int) {
		next := counts[w]
		lo := bounds[w]
		for i, r := range row[lo:bounds[w+1]] {
			p := next[r]
			next[r]++
			c.Indices[p] = col[lo+i]
			c.EIDs[p] = int32(lo + i)
		}
	})
	return c
}
