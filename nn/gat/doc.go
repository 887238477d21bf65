// Package gat implements GATConv, the graph attention layer of Veličković et
// al., "Graph Attention Networks" (ICLR 2018, https://arxiv.org/abs/1710.10903),
// on gnn's fused ops.
//
// For every head k, with z = x W reshaped to (N, H, F):
//
//	e_uv  = LeakyReLU(a_l,k · z_u,k + a_r,k · z_v,k)
//	α_uv  = softmax over the in-edges of v of e_uv
//	h'_v,k = act(sum over (u -> v) of α_uv z_u,k + residual + b)
//
// The paper concatenates z_u and z_v and takes one dot product with a; the
// layer instead projects each side on its half of a (el, er, one number per
// node and head) and adds them per edge, which is the same value without
// forming a per-edge concatenation (DGL's formulation). The per-edge work is
// two fused ops: ops.GATAttention (u_add_v, LeakyReLU and edge softmax in
// one pass, keeping only the (E, H, 1) attention) and u_mul_e + sum (SpMM):
// no E x H x F tensor is built, and no per-edge score tensor either.
// WithRecompute replaces both with ops.GATAttentionSum, which keeps nothing
// per edge for the backward and recomputes the attention there: three
// (E, H) tensors less per layer in training, for more arithmetic.
//
// With WithEdgeFeatures(D) and ForwardEdges, edge features ef (E, D) add a
// term a_e · (ef_uv W_e) to every logit before the LeakyReLU (PyG's
// edge_dim; DGL's EGATConv is a different layer that also updates the edge
// features). W_e and a_e are folded into one (D, H) matrix first, so the
// term costs H numbers per edge, not H x F; the logits then go through
// u_add_v, an add, LeakyReLU and the edge softmax as separate ops (four
// (E, H, 1) tensors).
//
// Shapes: x (N, in); output (N, H*F) when heads are concatenated, (N, F)
// when averaged; attention (E, H, 1). On a block (a bipartite graph whose
// destinations are its first sources, as sampling's) x has a row per
// source and the output a row per destination.
package gat
