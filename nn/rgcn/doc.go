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
// into Relations, one compact graph per relation between the nodes it
// reads and the nodes it writes (ToHomogeneous of a hetero.Graph gives the
// relation column); DstRange keeps the destinations of one node type, for
// a last layer that classifies that type only. Relations is an nn.Graph,
// so RelGraphConv is an nn.Layer. Forward is one SegmentMatMul: for each
// relation one dense product on only the rows it touches (multiplied
// first, or summed first when that is cheaper, chosen by the relation's
// sizes) and one fused weighted sum over its edges, then the self-loop and
// bias; block-diagonal weights take B block products of (in/B, out/B). No
// tensor with a row per edge, or per relation and node, is formed, forward
// or backward (DGL's gather_mm / segment_mm idea, grouped by relation).
//
// ForwardRows (SegmentMatMulRows) takes the features in row blocks, a
// model's node types' features as they are, without a stacked copy or its
// gradient. With nn.ReLU and dropout, the layer ends in the one op
// nn.ReLUDropout.
//
// Shapes: x (N, in); output (N, out).
package rgcn
