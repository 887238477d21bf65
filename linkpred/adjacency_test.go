package linkpred

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestContains checks the branch-free search against a scan on sorted rows
// with repeats.
func TestContains(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	for range 2000 {
		row := make([]int32, rng.IntN(40))
		for i := range row {
			row[i] = int32(rng.IntN(50)) - 5
		}
		slices.Sort(row)
		for v := int32(-7); v < 47; v++ {
			want := false
			for _, x := range row {
				want = want || x == v
			}
			if got := contains(row, v); got != want {
				t.Fatalf("contains(%v, %d) = %v", row, v, got)
			}
		}
	}
	if contains(nil, 0) {
		t.Error("contains(nil, 0)")
	}
}

// TestSortedRows: rows already sorted are shared, others sorted in a copy.
func TestSortedRows(t *testing.T) {
	t.Parallel()
	sorted := mustCOO(t, 3, 3, []int32{0, 0, 2}, []int32{1, 2, 0})
	a := sortedRows(sorted.CSR())
	if &a.idx[0] != &sorted.CSR().Indices[0] {
		t.Error("sorted rows were copied")
	}
	unsorted := mustCOO(t, 3, 4, []int32{0, 0, 0, 2, 2}, []int32{3, 1, 1, 2, 0})
	a = sortedRows(unsorted.CSR())
	if got := [][]int32{a.row(0), a.row(1), a.row(2)}; len(got[1]) != 0 ||
		!slices.Equal(got[0], []int32{1, 1, 3}) || !slices.Equal(got[2], []int32{0, 2}) {
		t.Errorf("sorted rows %v", got)
	}
	if c := unsorted.CSR().Indices; c[0] != 3 {
		t.Error("the graph's own indices were sorted in place")
	}
}
