// Package gin implements GINConv, the graph isomorphism network layer of Xu,
// Hu, Leskovec and Jegelka, "How Powerful are Graph Neural Networks?"
// (ICLR 2019, https://arxiv.org/abs/1810.00826), with DGL's semantics, on
// gnn's fused ops.
//
// For a destination node v with in-neighbours N(v) a layer computes
//
//	h'_v = act(f((1 + ε) h_v + agg_{u in N(v)} h_u))
//
// agg is Sum (the paper's choice, the one that makes GIN as discriminative
// as the Weisfeiler-Lehman test), Mean or Max (elementwise); f is a function
// the caller supplies, usually an MLP, and the identity when nil; ε is a
// fixed number (0 gives the paper's GIN-0) or a learned scalar (GIN-ε). In
// matrix form, with Sum, H' = act(f((1 + ε) X_dst + A^T X)). Edge weights
// (ForwardWeighted) multiply each message h_u before the reduction. A node
// without in-edges aggregates 0 (for Max too), which, as in DGL, is not an
// error.
//
// Shapes: x (NumSrc, in); f maps (NumDst, in) to (NumDst, out), and out
// must be in when f is nil; output (NumDst, out). On a homogeneous graph h_v
// is row v of x. On a bipartite graph (a message-flow block) the destination
// nodes are the first NumDst source nodes, DGL's convention, so h_v is again
// row v of x.
//
// The layer's own parameter is ε when learned, a (1, 1) tensor named
// "<name>.eps"; the parameters f uses belong to the caller, who may list
// them in WithApply so that Learnables returns them too.
package gin
