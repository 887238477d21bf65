package spmm

import (
	"sort"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/parallel"
)

// serialWork is the number of element operations (edges x row length) below
// which a kernel runs on the calling goroutine: starting workers costs more
// than it saves.
const serialWork = 1 << 15

// partsPerWorker is how many row ranges each worker gets on average, so that
// a worker that drew dense rows does not hold up the others.
const partsPerWorker = 8

// forRows calls fn(lo, hi) over contiguous ranges of the rows of c that
// together cover every row once, in parallel. Ranges hold about equal work,
// counting a row's edges plus one for the row itself, so skewed degrees do
// not unbalance the workers. rowLen is the number of elements a row's edge
// touches, used only to decide whether to go parallel.
//
// Every row is handled by exactly one call and the ranges do not depend on
// timing, so a kernel that writes only its own rows gives the same bits for
// any number of workers.
func forRows(c *graph.Compressed, rowLen int, fn func(lo, hi int)) {
	rows := c.NumRows()
	if rows <= 0 {
		return
	}
	edges := int(c.Indptr[rows] - c.Indptr[0]) // a view of some rows (SumRange) starts past 0
	w := parallel.Workers()
	if w == 1 || (edges+rows)*max(rowLen, 1) < serialWork || rows == 1 {
		fn(0, rows)
		return
	}
	parts := min(w*partsPerWorker, rows)
	total := int64(edges + rows)
	// bound returns the first row of part i: the first row r whose work
	// before it, Indptr[r] + r, reaches i/parts of the total.
	bound := func(i int) int {
		if i >= parts {
			return rows
		}
		target := total * int64(i) / int64(parts)
		return sort.Search(rows, func(r int) bool { return c.Indptr[r]-c.Indptr[0]+int64(r) >= target })
	}
	parallel.For(parts, 1, func(plo, phi int) {
		for i := plo; i < phi; i++ {
			if lo, hi := bound(i), bound(i+1); lo < hi {
				fn(lo, hi)
			}
		}
	})
}
