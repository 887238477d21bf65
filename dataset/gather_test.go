package dataset_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
)

// TestGather checks dense and CSR gathers against the rows of the dense
// matrix, with repeats and an empty row, and the range errors.
func TestGather(t *testing.T) {
	t.Parallel()
	sparse := &dataset.Features{Rows: 4, Cols: 3, Indptr: []int64{0, 2, 2, 3, 4}, Indices: []int32{0, 2, 1, 0}, Values: []float32{1, 0.5, 1, 2}}
	dense := &dataset.Features{Rows: 4, Cols: 3, Dense: sparse.ToDense()}
	ids := []int32{3, 1, 0, 3, 2}
	var want []float32
	for _, r := range ids {
		want = append(want, dense.Dense[int(r)*3:int(r+1)*3]...)
	}
	for _, f := range []*dataset.Features{dense, sparse} {
		g, err := f.Gather(ids)
		if err != nil {
			t.Fatal(err)
		}
		if g.Rows != 5 || g.Cols != 3 || g.IsSparse() != f.IsSparse() || !slices.Equal(g.ToDense(), want) {
			t.Errorf("sparse %t: gathered %v, want %v", f.IsSparse(), g.ToDense(), want)
		}
		if _, err := f.Gather([]int32{0, 4}); err == nil || !strings.Contains(err.Error(), "ID 4 (position 1) out of range [0, 4)") {
			t.Errorf("out of range: %v", err)
		}
	}
	if got, err := dataset.GatherLabels([]int32{5, 6, 7}, []int32{2, 0, 2}); err != nil || !slices.Equal(got, []int32{7, 5, 7}) {
		t.Errorf("labels %v, %v", got, err)
	}
	if _, err := dataset.GatherLabels([]int32{5}, []int32{-1}); err == nil {
		t.Errorf("negative ID accepted")
	}
	// Large enough to run in parallel.
	big := &dataset.Features{Rows: 10000, Cols: 2, Dense: make([]float32, 20000)}
	for i := range big.Dense {
		big.Dense[i] = float32(i)
	}
	rev := make([]int32, 10000)
	for i := range rev {
		rev[i] = int32(9999 - i)
	}
	g, err := big.Gather(rev)
	if err != nil || g.Dense[0] != 19998 || g.Dense[19999] != 1 {
		t.Errorf("reversed gather: %v", err)
	}
}
