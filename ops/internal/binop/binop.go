package binop

import "fmt"

// Op is how a left operand (source-node features, say) and a right operand
// (edge features) combine into one row.
type Op uint8

// The operators, numbered as in ops.Binary. CopyLHS and CopyRHS ignore one
// operand (for SpMM they are DGL's copy_u and copy_e); Dot multiplies
// elementwise and sums over the last feature dimension.
const (
	CopyLHS Op = iota
	CopyRHS
	Add
	Sub
	Mul
	Div
	Dot
)

var names = [...]string{"copy_lhs", "copy_rhs", "add", "sub", "mul", "div", "dot"}

// String returns DGL's spelling of the operator: "copy_lhs", "copy_rhs",
// "add", "sub", "mul", "div" or "dot".
func (o Op) String() string {
	if int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// UsesLHS reports whether the operator reads the left operand.
func (o Op) UsesLHS() bool { return o != CopyRHS }

// UsesRHS reports whether the operator reads the right operand.
func (o Op) UsesRHS() bool { return o != CopyLHS }

// Elementwise reports whether the operator is Add, Sub, Mul or Div.
func (o Op) Elementwise() bool { return o >= Add && o <= Div }
