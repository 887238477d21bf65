package linkpred

import (
	"cmp"
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

// TestSortKeyed checks the radix sort against a comparison sort on keys
// with few and with many distinct digits.
func TestSortKeyed(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range []struct{ n, nodes int }{{10, 5}, {300, 3}, {5000, 70000}, {3000, 1 << 30}} {
		ks := make([]keyed, c.n)
		for e := range ks {
			ks[e] = keyed{key: pack(int32(rng.IntN(c.nodes)), int32(rng.IntN(c.nodes))), dir: uint8(rng.IntN(2)), e: int64(e)}
		}
		want := slices.Clone(ks)
		slices.SortFunc(want, func(a, b keyed) int {
			if a.key != b.key {
				return cmp.Compare(a.key, b.key)
			}
			if a.dir != b.dir {
				return cmp.Compare(a.dir, b.dir)
			}
			return cmp.Compare(a.e, b.e)
		})
		sortKeyed(ks)
		if !slices.Equal(ks, want) {
			t.Errorf("n=%d nodes=%d: radix order differs", c.n, c.nodes)
		}
	}
}
