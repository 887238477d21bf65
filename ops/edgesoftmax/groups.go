package edgesoftmax

import (
	"fmt"
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
	// ahead is how many edge positions ahead of the one being reduced a
	// kernel touches the rows it will need, so that several cache misses
	// are in flight at once.
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

// touch loads one element of every cache line of row e of x, rows of
// width elements, step elements a line, and returns their sum so that the
// loads are not optimised away.
func touch[T num.Float](x []T, e int64, width, step int) T {
	row := x[int(e)*width : int(e)*width+width]
	var s T
	for j := 0; j < len(row); j += step {
		s += row[j]
	}
	return s
}

// lineStep returns the number of T in a cache line.
func lineStep[T num.Float]() int {
	var z T
	return lineBytes / int(unsafe.Sizeof(z))
}
