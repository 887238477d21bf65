// Package appnp implements APPNPConv, the propagation of Klicpera, Bojchevski
// and Günnemann, "Predict then Propagate: Graph Neural Networks meet
// Personalized PageRank" (ICLR 2019, https://arxiv.org/abs/1810.05997), on
// gnn's fused ops, with DGL's semantics.
//
// Starting from H^0 = x, K steps of
//
//	H^{k+1} = (1 - α) Â H^k + α x,   Â = D_in^-1/2 A^T D_out^-1/2
//
// (degrees clamped to 1) approximate personalized PageRank with teleport
// probability α; the result is H^K. The layer has no parameters: it
// propagates the predictions of any model (an MLP in the paper). With edge
// dropout each step multiplies every edge by its own dropout mask (a new
// one per step, scaled by 1/(1-p)) before the normalised sum; given edge
// weights, they replace the normalisation, as in DGL: Â = A_w.
//
// Each step is one fused normalised sum (three ops with edge dropout or
// weights) and one linear combination: no per-edge feature tensor.
// Nodes without in-edges are allowed, as in DGL: they keep α x after each
// step.
//
// Shapes: x (N, F) on a homogeneous graph; output (N, F).
package appnp
