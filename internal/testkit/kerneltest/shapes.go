package kerneltest

import (
	"strconv"
	"strings"
)

// ShapeCase is a pair of operand feature shapes for a binary op.
type ShapeCase struct {
	Name     string
	LHS, RHS []int
}

// ShapeCases are the broadcast patterns checked for every binary op: same
// shape, a scalar per edge, per-head weights, a broadcast lhs, a rhs with
// no feature dimensions, an outer product, and more heads than the scaled
// fast path takes.
var ShapeCases = []ShapeCase{
	{"same", []int{5}, []int{5}},
	{"same-2d", []int{2, 3}, []int{2, 3}},
	{"scalar-e", []int{6}, []int{1}},
	{"empty-e", []int{4}, []int{}},
	{"heads", []int{3, 4}, []int{3, 1}},
	{"bcast-u", []int{1, 4}, []int{3, 1}},
	{"scalar-u", []int{3, 1}, []int{3, 4}},
	{"outer", []int{2, 1, 3}, []int{1, 4, 1}},
	{"many-heads", []int{70, 2}, []int{70, 1}},
	// Widths for the vector kernels: one 8-wide chunk per head, heads of
	// two chunks, and scalar weights on 64 columns, on 24 (neither of the
	// fixed widths) and on 20 (a 4-column tail).
	{"heads-8x8", []int{8, 8}, []int{8, 1}},
	{"heads-2x16", []int{2, 16}, []int{2, 1}},
	{"scalar-e-64", []int{64}, []int{1}},
	{"scalar-e-24", []int{24}, []int{1}},
	{"scalar-e-20", []int{20}, []int{1}},
}

// CopyShapes are the feature shapes checked for the copy ops (copy_u,
// copy_e). Widths 8, 16, 24, 64 and 70 reach the vector kernels' paths.
var CopyShapes = [][]int{{1}, {5}, {2, 3}, {8}, {17}, {24}, {64}, {70}}

// ShapeName writes a shape as 2x3.
func ShapeName(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}
