// Package gatv2 implements GATv2Conv, the dynamic graph attention layer of
// Brody, Alon and Yahav, "How Attentive are Graph Attention Networks?"
// (ICLR 2022, https://arxiv.org/abs/2105.14491), on gnn's fused ops, with
// DGL's options and optional edge features in the attention (as PyG's
// GATv2Conv with edge_dim).
//
// For every head k, with z_src = x W_src + b_src and z_dst = x W_dst + b_dst
// reshaped to (N, H, F) (one weight when shared):
//
//	e_uv   = a_k · LeakyReLU(z_src[u],k + z_dst[v],k (+ W_e ef_uv),k)
//	α_uv   = softmax over the in-edges of v of e_uv
//	h'_v,k = act(sum over (u -> v) of α_uv z_src[u],k + residual)
//
// GAT (package gat) applies the LeakyReLU after the dot product with the
// attention vector, so its ranking of neighbours is the same for every
// query node ("static" attention); GATv2 applies it before, which makes the
// attention depend on both ends.
//
// DGL forms LeakyReLU(z_src[u] + z_dst[v]) as an E x H x F tensor and keeps
// it for the backward. Here the scores come from one fused op
// (ops.GATv2Scores) that forms that sum per edge in scratch and recomputes
// it in the backward, so no E x H x F tensor exists at any time, with or
// without edge features (their projection W_e ef_uv is fused into the same
// op); the aggregation is the u_mul_e SpMM GAT uses. In float32 with heads
// of 1, 2, 4 or a multiple of 8 features (H*F a multiple of 8) the scores
// and their gradients run in AVX2 assembly: three passes over the edges
// per training step, two of them reading one gathered row of H*F floats
// per edge, the third (the gradient of the source rows), on graphs
// numbered by destination, a record of the edge's score gradients and one
// bit per element of the sum, written by the second.
//
// Shapes: x (NumSrc, in); output (NumDst, H*out) with the heads
// concatenated, or (NumDst, out) with WithMeanHeads (DGL returns
// (NumDst, H, out)); attention (E, H, 1); edge features (E, D). On a
// bipartite graph (a block) the destination nodes are the first NumDst
// source nodes, as in DGL.
package gatv2
