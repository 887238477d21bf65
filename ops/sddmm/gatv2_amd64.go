//go:build amd64 && !purego

package sddmm

// The AVX2 kernels of GATv2 (gatv2_amd64.s); gatv2_accel.go drives them.

// gatv2FwdF32 writes the scores of the edges of the a.nodes nodes of the
// view from a.indptr, node after node.
//
//go:noescape
func gatv2FwdF32(a *gatv2Args)

// gatv2BwdF32 sets the rows from a.acc (a.astride bytes apart; 0: one
// row) of the a.nodes nodes of the view from a.indptr to the sums of their
// edges' gradients, adds those to the
// partial sums a.da and a.dwe, and writes the edges' rows of a.def (those
// not nil).
//
//go:noescape
func gatv2BwdF32(a *gatv2Args)

// gatv2MaskF32 adds the gradients of the a.n edges of one group, formed
// from their sign masks and score gradients, to the node row a.acc.
//
//go:noescape
func gatv2MaskF32(a *gatv2Args)

// gatv2MaskRowsF32 is gatv2MaskF32 for rows of 8 heads of 8 or 2 features
// over the a.nodes nodes from a.indptr, setting their rows from a.acc on.
//
//go:noescape
func gatv2MaskRowsF32(a *gatv2Args)
