package linkpred

import (
	"slices"
	"sync/atomic"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/parallel"
)

// adjacency is a compressed view whose rows are sorted by neighbour, so that
// whether an edge exists is a binary search in one row.
type adjacency struct {
	indptr []int64
	idx    []int32
}

// rowGrain is the number of rows a goroutine checks or sorts at a time.
const rowGrain = 4096

// sortedRows returns c's rows sorted by neighbour: c's own arrays when every
// row is already sorted (graphs built in (source, destination) order), else a
// sorted copy of its indices, built once in parallel.
func sortedRows(c *graph.Compressed) *adjacency {
	rows := c.NumRows()
	var unsorted atomic.Bool
	parallel.For(rows, rowGrain, func(lo, hi int) {
		for r := lo; r < hi && !unsorted.Load(); r++ {
			if !slices.IsSorted(c.Indices[c.Indptr[r]:c.Indptr[r+1]]) {
				unsorted.Store(true)
			}
		}
	})
	if !unsorted.Load() {
		return &adjacency{indptr: c.Indptr, idx: c.Indices}
	}
	idx := slices.Clone(c.Indices)
	parallel.For(rows, rowGrain, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			slices.Sort(idx[c.Indptr[r]:c.Indptr[r+1]])
		}
	})
	return &adjacency{indptr: c.Indptr, idx: idx}
}

// row returns the sorted neighbours of r.
func (a *adjacency) row(r int32) []int32 { return a.idx[a.indptr[r]:a.indptr[r+1]] }

// contains reports whether the sorted row holds v. The search is
// branch-free (a mask from the comparison's sign), since whether a random
// candidate is smaller than a neighbour is a coin toss the branch predictor
// cannot learn.
func contains(row []int32, v int32) bool {
	n := len(row)
	if n == 0 {
		return false
	}
	base := 0
	for n > 1 {
		half := n >> 1
		// v - row[m] is negative, its sign word all ones, exactly when
		// row[m] > v: then base stays.
		d := int64(v) - int64(row[base+half])
		base += half &^ int(d>>63)
		n -= half
	}
	return row[base] == v
}
