package graph

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// naiveCompress builds the view the obvious way: one list per row, edges
// appended in edge-ID order.
func naiveCompress(rows int, row, col []int32) *Compressed {
	idx := make([][]int32, rows)
	eid := make([][]int32, rows)
	for e, r := range row {
		idx[r] = append(idx[r], col[e])
		eid[r] = append(eid[r], int32(e))
	}
	c := &Compressed{Indptr: make([]int64, rows+1), Indices: []int32{}, EIDs: []int32{}}
	for r := range rows {
		c.Indices = append(c.Indices, idx[r]...)
		c.EIDs = append(c.EIDs, eid[r]...)
		c.Indptr[r+1] = int64(len(c.Indices))
	}
	c.Ordered = true
	for p, e := range c.EIDs {
		c.Ordered = c.Ordered && int(e) == p
	}
	return c
}

// diffCompressed describes the first difference between two views, or
// returns "".
func diffCompressed(got, want *Compressed) string {
	switch {
	case !slices.Equal(got.Indptr, want.Indptr):
		return "Indptr differs"
	case !slices.Equal(got.Indices, want.Indices):
		return "Indices differ"
	case !slices.Equal(got.EIDs, want.EIDs):
		return "EIDs differ"
	case len(got.Indices) != len(got.EIDs) || got.Indptr[len(got.Indptr)-1] != int64(len(got.EIDs)):
		return "lengths disagree"
	case got.Ordered != want.Ordered:
		return fmt.Sprintf("Ordered is %v, want %v", got.Ordered, want.Ordered)
	}
	return ""
}

func TestViews(t *testing.T) {
	for _, f := range fixtures() {
		g := f.graph(t)
		csr, csc := g.CSR(), g.CSC()
		if d := diffCompressed(csr, naiveCompress(f.numSrc, f.src, f.dst)); d != "" {
			t.Errorf("%s: CSR: %s: got %+v", f.name, d, *csr)
		}
		if d := diffCompressed(csc, naiveCompress(f.numDst, f.dst, f.src)); d != "" {
			t.Errorf("%s: CSC: %s: got %+v", f.name, d, *csc)
		}
		if csr.NumRows() != f.numSrc || csc.NumRows() != f.numDst {
			t.Errorf("%s: got rows %d, %d, want %d, %d", f.name, csr.NumRows(), csc.NumRows(), f.numSrc, f.numDst)
		}
		if g.CSR() != csr || g.CSC() != csc {
			t.Errorf("%s: views rebuilt on a second call", f.name)
		}
		checkRowOrder(t, f.name+"/CSR", csr)
		checkRowOrder(t, f.name+"/CSC", csc)
	}
}

// checkRowOrder checks that edge IDs increase within every row and that Row
// and Degree agree with Indptr.
func checkRowOrder(t *testing.T, name string, c *Compressed) {
	t.Helper()
	for r := range c.NumRows() {
		lo, hi := c.Row(r)
		if lo != c.Indptr[r] || hi != c.Indptr[r+1] || c.Degree(r) != int(hi-lo) {
			t.Errorf("%s: row %d: got Row (%d, %d) Degree %d, Indptr %d, %d", name, r, lo, hi, c.Degree(r), c.Indptr[r], c.Indptr[r+1])
		}
		for p := lo + 1; p < hi; p++ {
			if c.EIDs[p-1] >= c.EIDs[p] {
				t.Errorf("%s: row %d: edge IDs %d then %d", name, r, c.EIDs[p-1], c.EIDs[p])
				break
			}
		}
	}
}

// TestViewsParallel covers the multi-goroutine build, which must give the
// same views as the sequential one for any GOMAXPROCS.
func TestViewsParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(2, 2))
	e := parallelEdges + 1234
	for _, c := range []struct {
		name           string
		numSrc, numDst int
	}{
		{"random", 5000, 5000},
		{"skewed", 3, 20000}, // fewer source rows than workers would split well
		{"one-row", 1, 1},
		{"bipartite", 70000, 40},
	} {
		src, dst := randomCOO(r, c.numSrc, c.numDst, e)
		wantCSR := naiveCompress(c.numSrc, src, dst)
		wantCSC := naiveCompress(c.numDst, dst, src)
		for _, procs := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(procs)
			g := mustFromCOO(t, c.numSrc, c.numDst, src, dst)
			if d := diffCompressed(g.CSR(), wantCSR); d != "" {
				t.Errorf("%s/procs=%d: CSR: %s", c.name, procs, d)
			}
			if d := diffCompressed(g.CSC(), wantCSC); d != "" {
				t.Errorf("%s/procs=%d: CSC: %s", c.name, procs, d)
			}
		}
	}
}

// TestViewsConcurrent builds views from many goroutines at once; run with
// -race it checks the lazy construction.
func TestViewsConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	src, dst := randomCOO(r, 300, 200, 5000)
	g := mustFromCOO(t, 300, 200, src, dst)
	const workers = 16
	csr := make([]*Compressed, workers)
	csc := make([]*Compressed, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w%2 == 0 {
				csr[w], csc[w] = g.CSR(), g.Reverse().CSR()
			} else {
				csc[w], csr[w] = g.CSC(), g.Reverse().CSC()
			}
			var sum int64
			for _, e := range csr[w].EIDs {
				sum += int64(e)
			}
			if want := int64(len(src)) * int64(len(src)-1) / 2; sum != want {
				t.Errorf("worker %d: CSR edge IDs sum to %d, want %d", w, sum, want)
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		if csr[w] != csr[0] || csc[w] != csc[0] {
			t.Errorf("worker %d saw a different view", w)
		}
	}
	if d := diffCompressed(csc[0], naiveCompress(200, dst, src)); d != "" {
		t.Errorf("CSC: %s", d)
	}
}
