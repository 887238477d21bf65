package dataset

import "github.com/gnngo/gnn/graph"

// Dataset is a node-classification dataset over a homogeneous graph.
type Dataset struct {
	Name       string
	Graph      *graph.Graph
	Features   *Features
	Labels     []int32 // class of every node, in [0, NumClasses)
	NumClasses int

	// Train, Val and Test hold node IDs in increasing order.
	Train, Val, Test []int32
}

// Features is an N x F float32 matrix, held dense or in compressed sparse
// row form. Exactly one of Dense and Values is non-nil (both are nil only for
// an empty matrix).
type Features struct {
	Rows, Cols int

	// Dense holds the matrix in row-major order when it is dense.
	Dense []float32

	// Indptr, Indices and Values hold the matrix in CSR form when it is
	// sparse: row r's non-zeros are Values[Indptr[r]:Indptr[r+1]] in columns
	// Indices[Indptr[r]:Indptr[r+1]], columns increasing.
	Indptr  []int64
	Indices []int32
	Values  []float32
}

// IsSparse reports whether the matrix is held in CSR form.
func (f *Features) IsSparse() bool { return f.Values != nil }

// NNZ returns the number of stored non-zeros (Rows*Cols for a dense matrix).
func (f *Features) NNZ() int {
	if f.IsSparse() {
		return len(f.Values)
	}
	return f.Rows * f.Cols
}

// ToDense returns the matrix as a new row-major slice.
func (f *Features) ToDense() []float32 {
	out := make([]float32, f.Rows*f.Cols)
	if !f.IsSparse() {
		copy(out, f.Dense)
		return out
	}
	for r := range f.Rows {
		for p := f.Indptr[r]; p < f.Indptr[r+1]; p++ {
			out[r*f.Cols+int(f.Indices[p])] = f.Values[p]
		}
	}
	return out
}

// RowNormalize divides every row by its sum, in place, leaving all-zero rows
// unchanged (PyG's NormalizeFeatures).
func (f *Features) RowNormalize() {
	scale := func(v []float32) {
		var s float64
		for _, x := range v {
			s += float64(x)
		}
		if s == 0 {
			return
		}
		for i := range v {
			v[i] = float32(float64(v[i]) / s)
		}
	}
	for r := range f.Rows {
		if f.IsSparse() {
			scale(f.Values[f.Indptr[r]:f.Indptr[r+1]])
		} else {
			scale(f.Dense[r*f.Cols : (r+1)*f.Cols])
		}
	}
}
