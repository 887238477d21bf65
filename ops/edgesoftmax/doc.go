// Package edgesoftmax holds the fused edge softmax kernels of graph
// attention (DGL's edge_softmax): for every group of edges that share a
// destination node (or a source node), and independently for each of the
// width columns of an edge's score row (attention heads, say),
//
//	out[e] = exp(score[e] - max) / sum over e' in the group of exp(score[e'] - max)
//
// and the matching backward pass
//
//	dScore[e] = y[e] * (dy[e] - sum over e' in the group of y[e'] * dy[e']).
//
// Both run in one pass over each group without edge-sized temporaries,
// subtract the group maximum so that large scores do not overflow, and walk
// the graph's CSC (ByDst) or CSR (BySrc) view, reaching edge rows through its
// edge-ID map. Groups are split over goroutines, each computed start to end
// by one of them in a fixed order, so results are bit-identical for any
// GOMAXPROCS. Nodes without edges in the group's direction produce nothing.
//
// The kernels are pure Go, generic over float32 and float64, and import no
// tensor framework; package ops wraps them as a Gorgonia op.
package edgesoftmax
