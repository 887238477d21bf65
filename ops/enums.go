package ops

import (
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/internal/binop"
	"github.com/gnngo/gnn/ops/spmm"
)

// Binary is the binary operator of a message: how a left operand (source
// features, say) and a right operand (edge features) combine. It is the
// operator type of the kernels too (spmm.Op and sddmm.Op are the same type),
// and its String is DGL's spelling ("copy_lhs", "add", "dot", ...).
type Binary = binop.Op

// Binary operators. CopyLHS and CopyRHS ignore one operand: for SpMM they
// are DGL's copy_u and copy_e. Dot is the sum over the last feature
// dimension of the elementwise product.
const (
	CopyLHS = binop.CopyLHS
	CopyRHS = binop.CopyRHS
	Add     = binop.Add
	Sub     = binop.Sub
	Mul     = binop.Mul
	Div     = binop.Div
	Dot     = binop.Dot
)

// Reducer aggregates the messages arriving at a destination node.
type Reducer = spmm.Reduce

// Reducers. A node with no in-edges gets 0 for every reducer, and Mean
// divides by max(in-degree, 1), as in DGL.
const (
	Sum  = spmm.Sum
	Mean = spmm.Mean
	Max  = spmm.Max
	Min  = spmm.Min
)

// Norm says over which edges EdgeSoftmax normalises.
type Norm = edgesoftmax.Norm

// Normalisations of EdgeSoftmax.
const (
	ByDst = edgesoftmax.ByDst // over the in-edges of each destination (the default in DGL)
	BySrc = edgesoftmax.BySrc // over the out-edges of each source
)
