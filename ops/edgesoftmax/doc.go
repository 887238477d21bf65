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
// Both walk the graph's CSC (ByDst) or CSR (BySrc) view once, reaching edge
// rows through its edge-ID map, and make their two or three passes over a
// group while its rows are cached, without edge-sized temporaries. The
// forward pass subtracts the group maximum, so large scores do not overflow.
// Groups are split over goroutines by edge count, each computed start to end
// by one of them in a fixed order, so results are bit-identical for any
// GOMAXPROCS. Nodes without edges in the group's direction produce nothing.
//
// When edge IDs are in random order within a group (a random graph, or any
// graph whose edges were not numbered by destination), every edge row read
// through the view is a cache and TLB miss. For float32 rows of 2, 4 or a
// multiple of 8 columns whose per-group tables fit the cache, Forward and Backward
// (and AttentionBackward, for eight heads) then take a streaming path
// (stream.go): they walk the edge rows in edge-ID order, a sequential
// stream, and gather and scatter per-group maxima and sums in small tables,
// merged over a fixed split of the edges in a fixed order, so results stay
// the same for any GOMAXPROCS. Otherwise
// the Go kernels load the rows of a batch of edges ahead of the arithmetic
// so that the misses overlap (the assembly kernels' first pass over a
// group is a stream of independent loads, which the processor overlaps by
// itself), but such graphs run several times slower than ones numbered in
// group order (see the order=dst benchmarks).
//
// Attention and AttentionBackward fuse GAT's scores into the softmax by
// destination: the scores LeakyReLU(el[u] + er[v]) are computed per group
// into scratch from one row per node, never stored per edge, and the
// backward recomputes them for the LeakyReLU's slope. AttentionSum goes one
// step further and sums the attention-weighted source rows (GAT's
// aggregation) per group, so that the attention itself is never stored:
// its backward (AttentionSumBackwardDst, over every destination's in-edges,
// then AttentionSumBackwardSrc, over every source's out-edges) recomputes
// it twice from the scores and three rows of statistics per destination.
// Those kernels are Go, for any width, touching the gathered node rows a
// batch of edges ahead.
//
// The kernels are generic Go over float32 and float64 and import no tensor
// framework; package ops wraps them as Gorgonia ops (EdgeSoftmax,
// GATAttention). On amd64 with AVX2
// and FMA, float32 rows run in assembly (rows_amd64.s, and stream_amd64.s
// for the streaming path): a group's maxima and
// sums stay in vector registers, eight columns at a time, with a vectorised
// float32 exponential (about 1e-7 relative, exp_amd64.h) and sums in
// float64; attention_amd64.s does the same for the attention of one and of
// eight heads. Rows of 2 and 4 columns (narrow_amd64.s, and
// attention_narrow_amd64.s for two and four heads) pack the rows of 4 or 2
// edges into one vector, with the results of the 8-column kernels. The
// purego build tag keeps everything in Go.
package edgesoftmax
