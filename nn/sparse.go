package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// Sparse is a sparse Rows x Cols input matrix (bag-of-words features, say)
// held as a bipartite graph from Cols column nodes to Rows row nodes, one
// edge per non-zero, with the values as a constant (non-zeros x 1) tensor.
// Multiplying it by a dense matrix is then a u_mul_e + sum SpMM, whose
// gradient with respect to the dense matrix is the same SpMM on the reversed
// graph: the features are never densified.
type Sparse struct {
	Rows, Cols int
	Graph      *graph.Graph   // column -> row, NumSrc Cols, NumDst Rows
	Values     *gorgonia.Node // (nnz, 1)
}

// NewSparse adds a CSR matrix to eg: row r's non-zeros are values
// [indptr[r], indptr[r+1]) in columns indices[...]. The slices are copied.
func NewSparse(eg *gorgonia.ExprGraph, name string, rows, cols int, indptr []int64, indices []int32, values []float32) (*Sparse, error) {
	if len(indptr) != rows+1 || indptr[0] != 0 || indptr[rows] != int64(len(indices)) || len(indices) != len(values) {
		return nil, fmt.Errorf("nn: sparse %q: inconsistent CSR (rows %d, indptr %d, indices %d, values %d)", name, rows, len(indptr), len(indices), len(values))
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("nn: sparse %q has no non-zeros", name)
	}
	src := make([]int32, len(indices))
	dst := make([]int32, len(indices))
	copy(src, indices)
	for r := range rows {
		if indptr[r+1] < indptr[r] {
			return nil, fmt.Errorf("nn: sparse %q: indptr decreases at row %d", name, r)
		}
		for p := indptr[r]; p < indptr[r+1]; p++ {
			dst[p] = int32(r)
		}
	}
	g, err := graph.FromCOO(cols, rows, src, dst)
	if err != nil {
		return nil, fmt.Errorf("nn: sparse %q: %w", name, err)
	}
	v := tensor.New(tensor.WithShape(len(values), 1), tensor.WithBacking(append([]float32{}, values...)))
	vals := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(len(values), 1), gorgonia.WithName(name), gorgonia.WithValue(v))
	return &Sparse{Rows: rows, Cols: cols, Graph: g, Values: vals}, nil
}

// MatMul returns the dense product s * w for w of shape (Cols, k).
func (s *Sparse) MatMul(w *gorgonia.Node) (*gorgonia.Node, error) {
	if sh := w.Shape(); len(sh) != 2 || sh[0] != s.Cols {
		return nil, fmt.Errorf("nn: sparse (%d x %d) times %q of shape %v", s.Rows, s.Cols, w.Name(), w.Shape())
	}
	return ops.UMulESum(s.Graph, w, s.Values)
}

// Dropout returns s with dropout applied to its non-zero values (the
// dropout of the dense matrix, since zeros stay zero).
func (s *Sparse) Dropout(p float64, seed uint64, mode *Mode) (*Sparse, error) {
	v, err := Dropout(s.Values, p, seed, mode)
	if err != nil {
		return nil, err
	}
	out := *s
	out.Values = v
	return &out, nil
}
