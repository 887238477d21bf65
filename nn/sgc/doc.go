// Package sgc implements SGConv, the simplified graph convolution of Wu et
// al., "Simplifying Graph Convolutional Networks" (ICML 2019,
// https://arxiv.org/abs/1902.07153), on gnn's fused ops, with DGL's options.
//
// A layer computes
//
//	H' = (D^-1/2 A^T D^-1/2)^K x W + b
//
// with D the in-degrees clamped to 1 on both sides, as DGL's SGConv (on a
// symmetric graph, Kipf and Welling's normalisation; add self-loops with
// graph.AddSelfLoops as the paper does). Given edge weights, they are first
// normalised as DGL's EdgeWeightNorm("both") does, w_uv / sqrt(w_out(u)
// w_in(v)) with w_out and w_in the weighted degrees, and the K steps sum
// w_uv h_u. An optional function (DGL's norm) is applied to the propagated
// features before the linear map.
//
// With WithCached the K propagation steps run once, when Forward is
// called, on the value the features hold then; later runs of the
// expression graph only apply the linear map (DGL's cached, for
// transductive training). The cached features are a constant: no gradient
// flows to x.
//
// Each step is two fused ops (source scaling, then the sum with the
// destination scaling): no per-edge feature tensor.
//
// Shapes: x (N, in) on a homogeneous graph; output (N, out).
package sgc
