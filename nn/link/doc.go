// Package link holds the pieces of link prediction and edge-level tasks
// that sit on top of a GNN encoder: decoders that score node pairs, the
// losses that train them, an edge head for edge classification and
// regression, and ranking of evaluation pairs without per-pair tensors.
//
// # Pair graphs
//
// Pairs to score are the edges of a pair graph: a *graph.Graph whose nodes
// are the rows of the embeddings h (N x F) and whose edges are the (u, v)
// pairs, for example the positive edges of a batch in one graph and their
// sampled negatives in another. Every Decoder's Score(pairs, h) returns one
// logit per pair, (E, 1), in edge-ID order.
//
//   - Dot: <h_u, h_v>, the GAE decoder, ops.UDotV (fused: no E x F gather);
//   - Cosine: cosine similarity, ops.UCosV (fused);
//   - DistMult: sum_f h_u[f] w_r[f] h_v[f] with a learnable relation table,
//     ops.DistMult (fused);
//   - MLP: a perceptron on [h_u, h_v] or h_u * h_v (rows per pair are
//     inherent here; with [h_u, h_v] the first layer is computed on the
//     nodes and added per pair when that is cheaper).
//
// # Losses
//
// BCEWithLogits (positives labelled 1, negatives 0; stable for any logit,
// weighted and masked), MarginRanking and SoftmaxNegatives (each positive
// against its k negatives, laid out as rows i*k ... i*k+k-1) are fused
// ops with exact gradients, computed in float64 in a fixed order. MSE is
// the regression loss of an EdgeHead; its classification loss is
// nn.CrossEntropy over the edges' rows.
//
// # Evaluation
//
// RankDot ranks each positive against its own negatives (ogbl-citation2's
// protocol) from a plain embedding table, feeding a metrics.Ranking for
// MRR and Hits@K, and ScoreDot scores evaluation pairs for metrics.Binary
// (AUC, AP) or metrics.HitsAtK: neither forms a row per pair, and both
// give the same result for any GOMAXPROCS.
package link
