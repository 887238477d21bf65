package ops

import (
	"fmt"

	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/spmm"
)

// Binary is the binary operator of a message: how a left operand (source
// features, say) and a right operand (edge features) combine.
type Binary uint8

// Binary operators. CopyLHS and CopyRHS ignore one operand: for SpMM they
// are DGL's copy_u and copy_e.
const (
	CopyLHS Binary = iota
	CopyRHS
	Add
	Sub
	Mul
	Div
	Dot // sum over the last feature dimension of the elementwise product
)

var binaryNames = [...]string{"copy_lhs", "copy_rhs", "add", "sub", "mul", "div", "dot"}

// String returns DGL's spelling of the operator.
func (b Binary) String() string {
	if int(b) < len(binaryNames) {
		return binaryNames[b]
	}
	return fmt.Sprintf("Binary(%d)", b)
}

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
