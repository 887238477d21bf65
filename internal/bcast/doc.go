// Package bcast plans NumPy-style broadcasting between the feature shapes of
// two operands of a binary message (a source-node row and an edge row, say),
// without materialising the expanded operand: kernels read both operands
// through the offset tables of a Plan.
//
// Shapes here are feature shapes only: the leading node or edge dimension is
// not part of them.
package bcast
