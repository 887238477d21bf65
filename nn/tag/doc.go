// Package tag implements TAGConv, the topology adaptive graph convolution of
// Du et al., "Topology Adaptive Graph Convolutional Networks" (2017,
// https://arxiv.org/abs/1710.10370), on gnn's fused ops, with DGL's options.
//
// A layer computes
//
//	H' = act([x, Â x, Â² x, …, Â^K x] W + b),   Â = D^-1/2 A^T D^-1/2
//
// with D the in-degrees clamped to 1 on both sides (DGL's TAGConv), the
// K+1 hops concatenated along the features and one linear map W of
// (K+1)*in rows. Given edge weights, Â is the weighted adjacency as is (no
// normalisation), as in DGL. Nodes without in-edges are allowed, as in
// DGL: their hops beyond the first are 0.
//
// Each hop is two fused ops (source scaling, then the sum with the
// destination scaling), or one u_mul_e sum with edge weights: no per-edge
// feature tensor.
//
// Shapes: x (N, in) on a homogeneous graph; output (N, out).
package tag
