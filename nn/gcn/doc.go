// Package gcn implements GraphConv, the graph convolution of Kipf and
// Welling, "Semi-Supervised Classification with Graph Convolutional Networks"
// (ICLR 2017, https://arxiv.org/abs/1609.02907), on gnn's fused ops.
//
// With the default "both" normalisation a layer computes
//
//	H' = act(D_in^-1/2 A^T D_out^-1/2 H W + b)
//
// node-wise h'_v = act(b + sum over edges (u -> v) of h_u W / sqrt(d_out(u) d_in(v))),
// with degrees clamped to 1. Self-loops are not added: add them to the graph
// (graph.AddSelfLoops) as DGL users do.
//
// Shapes: source features (NumSrc, in); output (NumDst, out).
package gcn
