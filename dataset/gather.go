package dataset

import (
	"fmt"

	"github.com/gnngo/gnn/internal/parallel"
)

// gatherGrain is the number of rows below which gathering stays on one
// goroutine.
const gatherGrain = 4096

// Gather returns the rows ids of f, in that order, as a new matrix held as
// f is (dense or CSR): the input features of a mini-batch's nodes, copied
// without copying the whole table. Rows may repeat. It returns an error
// naming the first ID out of range.
func (f *Features) Gather(ids []int32) (*Features, error) {
	if err := checkRowIDs(ids, f.Rows); err != nil {
		return nil, err
	}
	out := &Features{Rows: len(ids), Cols: f.Cols}
	if !f.IsSparse() {
		out.Dense = make([]float32, len(ids)*f.Cols)
		parallel.For(len(ids), gatherGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r := int(ids[i])
				copy(out.Dense[i*f.Cols:(i+1)*f.Cols], f.Dense[r*f.Cols:(r+1)*f.Cols])
			}
		})
		return out, nil
	}
	out.Indptr = make([]int64, len(ids)+1)
	for i, r := range ids {
		out.Indptr[i+1] = out.Indptr[i] + f.Indptr[r+1] - f.Indptr[r]
	}
	nnz := out.Indptr[len(ids)]
	out.Indices, out.Values = make([]int32, nnz), make([]float32, nnz)
	parallel.For(len(ids), gatherGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := ids[i]
			copy(out.Indices[out.Indptr[i]:out.Indptr[i+1]], f.Indices[f.Indptr[r]:f.Indptr[r+1]])
			copy(out.Values[out.Indptr[i]:out.Indptr[i+1]], f.Values[f.Indptr[r]:f.Indptr[r+1]])
		}
	})
	return out, nil
}

// GatherLabels returns labels[ids[i]] for every i: the labels of a
// mini-batch's output nodes. It returns an error naming the first ID out of
// range.
func GatherLabels(labels []int32, ids []int32) ([]int32, error) {
	if err := checkRowIDs(ids, len(labels)); err != nil {
		return nil, err
	}
	out := make([]int32, len(ids))
	for i, v := range ids {
		out[i] = labels[v]
	}
	return out, nil
}

// checkRowIDs reports the first ID outside [0, n).
func checkRowIDs(ids []int32, n int) error {
	for i, v := range ids {
		if v < 0 || int(v) >= n {
			return fmt.Errorf("dataset: gather: ID %d (position %d) out of range [0, %d)", v, i, n)
		}
	}
	return nil
}
