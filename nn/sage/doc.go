// Package sage implements SAGEConv, the GraphSAGE layer of Hamilton, Ying
// and Leskovec, "Inductive Representation Learning on Large Graphs"
// (NeurIPS 2017, https://arxiv.org/abs/1706.02216), with DGL's semantics,
// on gnn's fused ops.
//
// For a destination node v with in-neighbours N(v), the three aggregators
// compute
//
//	Mean: h'_v = act(h_v W_self + mean_{u in N(v)} h_u W_neigh + b)
//	GCN:  h'_v = act((h_v + sum_{u in N(v)} h_u) / (|N(v)| + 1) W_neigh + b)
//	Pool: h'_v = act(h_v W_self + max_{u in N(v)} ReLU(h_u W_pool + b_pool) W_neigh + b)
//
// where the max is elementwise and |N(v)| counts edges (parallel edges
// count twice). Edge weights (ForwardWeighted) multiply each message, h_u or
// ReLU(h_u W_pool + b_pool), before the reduction; the GCN denominator stays
// |N(v)| + 1. A node without in-edges aggregates 0, so its output is
// act(h_v W_self + b) (GCN: act(h_v W_neigh + b)); as in DGL this is not an
// error, and a graph without edges is fine too. Mean and GCN multiply by
// W_neigh before aggregating when the aggregation then gathers fewer cache
// lines per edge (nn.ProjectFirst), which gives the same result.
// Feature dropout (WithFeatDropout) applies to x before everything else.
//
// In matrix form, with A the NumSrc x NumDst adjacency and D_in its
// in-degrees clamped to 1, Mean is act(X_dst W_self + D_in^-1 A^T X W_neigh + b).
//
// Shapes: x (NumSrc, in); output (NumDst, out). On a homogeneous graph h_v is
// row v of x. On a bipartite graph (a message-flow block) the destination
// nodes are the first NumDst source nodes, DGL's convention, so h_v is again
// row v of x; a graph with more destinations than sources is an error.
//
// Parameters (weights multiply from the right, in x out): fc_pool.weight
// (in, in) and fc_pool.bias (in) for Pool, fc_self.weight (in, out) for Mean
// and Pool, fc_neigh.weight (in, out), and bias (out). Weights are
// Glorot-uniform with gain sqrt(2), as DGL initialises them; biases start at
// 0 (DGL leaves fc_pool's bias at PyTorch's default uniform init).
package sage
