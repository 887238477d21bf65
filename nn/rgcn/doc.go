// Package rgcn holds RelGraphConv, the relational graph convolution of
// R-GCN (Schlichtkrull et al., DGL's dgl.nn.RelGraphConv):
//
//	h_i = act( sum_r sum_{j in N_r(i)} c_e x_j W_r  +  x_i W_0  +  b ),
//
// then dropout, where r runs over the relations, c_e is the edge's norm (1
// when none is given; DGL's norm, usually 1/|N_r(i)|, which RightNorm
// computes) and W_0 the optional self-loop weight. W_r is either a full
// (in, out) matrix per relation, a combination of B shared bases (basis
// decomposition: W_r = sum_b a_rb V_b), or block-diagonal with B blocks of
// (in/B, out/B) (block-diagonal decomposition, DGL's "bdd").
//
// The graph is homogeneous, with a relation per edge: Group splits it once
// into one graph per relation (ToHomogeneous of a hetero.Graph gives the
// relation column). When in >= out Forward runs, for each relation, one
// dense product x W_r and one fused weighted sum (ops.UMulESum, or
// ops.CopyUSum without norm) over that relation's edges; when in < out it
// sums first, A_r x per relation, and multiplies the (N, R·in)
// concatenation by the stacked (R·in, out) weights once, which holds
// R·in instead of R·out columns per node. Either way no tensor with a row
// per edge is formed, forward or backward (DGL's low-memory path, its
// gather_mm idea grouped by relation).
//
// Shapes: x (N, in); output (N, out).
package rgcn
