package edgesoftmax

import (
	"fmt"
	"runtime"
	"sort"
	"unsafe"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

const (
	// grainEdges is the smallest number of edges worth handing to another
	// goroutine.
	grainEdges = 1 << 14
	// chunksPerWorker evens out chunks of unequal speed.
	chunksPerWorker = 8
	// ahead is the batch of edge positions whose rows a kernel touches at
	// once, one batch ahead of the edges it reduces.
	ahead = 32
	// lineBytes is the cache line size that touching steps by.
	lineBytes = 64
)

// groups returns the view whose rows are the softmax groups of norm.
func groups(g *graph.Graph, norm Norm) *graph.Compressed {
	switch norm {
	case ByDst:
		return g.CSC()
	case BySrc:
		return g.CSR()
	}
	panic(fmt.Sprintf("edgesoftmax: unknown %v", norm))
}

// checkLen panics unless x holds width values per edge of g.
func checkLen[T num.Float](name string, x []T, g *graph.Graph, width int) {
	if width < 0 {
		panic(fmt.Sprintf("edgesoftmax: negative width %d", width))
	}
	if want := g.NumEdges() * width; len(x) != want {
		panic(fmt.Sprintf("edgesoftmax: %s has length %d, want %d (%d edges × %d)", name, len(x), want, g.NumEdges(), width))
	}
}

// forRows calls fn(lo, hi) over contiguous row ranges that cover the rows
// of c, on several goroutines. Ranges hold about equal numbers of edges, so
// skewed degrees balance; every row is handled whole by one call.
func forRows(c *graph.Compressed, fn func(lo, hi int)) {
	rows := c.NumRows()
	ne := int(c.Indptr[rows])
	parts := min(parallel.Workers()*chunksPerWorker, ne/grainEdges, rows)
	if parts <= 1 {
		fn(0, rows)
		return
	}
	bounds := make([]int, parts+1)
	for i := 1; i < parts; i++ {
		target := int64(ne) * int64(i) / int64(parts)
		bounds[i] = sort.Search(rows, func(r int) bool { return c.Indptr[r+1] > target })
	}
	bounds[parts] = rows
	parallel.For(parts, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if bounds[i] < bounds[i+1] {
				fn(bounds[i], bounds[i+1])
			}
		}
	})
}

// touch loads one element of every cache line of the rows, in each of xs,
// of the edges eids, rows of width elements.
//
// Edge rows reached through a CSC or CSR view are scattered over memory.
// Loads issued back to back for a batch of edges miss the cache together
// instead of one edge at a time, so that the passes over a group that follow
// find its rows cached. Go has no prefetch instruction; ordinary loads serve.
// Their values are folded into an integer kept alive, so that the loads are
// not optimised away; a float sum would chain them through the adder's
// latency.
func touch[T num.Float](eids []int32, width int, xs ...[]T) {
	var z T
	step := lineBytes / int(unsafe.Sizeof(z))
	var s int
	for _, x := range xs {
		for _, e := range eids {
			row := x[int(e)*width : int(e)*width+width]
			for j := 0; j < len(row); j += step {
				s += int(row[j])
			}
		}
	}
	runtime.KeepAlive(s)
}
