// Package cheb implements ChebConv, the Chebyshev spectral graph
// convolution of Defferrard, Bresson and Vandergheynst, "Convolutional
// Neural Networks on Graphs with Fast Localized Spectral Filtering"
// (NeurIPS 2016, https://arxiv.org/abs/1606.09375), on gnn's fused ops,
// with DGL's semantics.
//
// With the normalised Laplacian L = I - D^-1/2 A^T D^-1/2 (D the in-degrees
// clamped to 1 on both sides, as DGL) rescaled to L~ = 2L/λ_max - I, a
// layer of K terms computes
//
//	X_0 = x,  X_1 = L~ x,  X_k = 2 L~ X_{k-1} - X_{k-2}
//	H'  = act([X_0, X_1, …, X_{K-1}] W + b)
//
// with the K terms concatenated along the features and one linear map W of
// K*in rows. λ_max is the largest eigenvalue of L; DGL takes 2 when it is
// not given (its upper bound), and so does this package; LambdaMax
// estimates it (DGL's dgl.laplacian_lambda_max). The activation is ReLU by
// default, as in DGL.
//
// Each term is two fused ops for D^-1/2 A^T D^-1/2 X and one linear
// combination: no per-edge feature tensor.
//
// Shapes: x (N, in) on a homogeneous graph; output (N, out).
package cheb
