// Package sddmm holds the generalised sampled dense-dense matrix
// multiplication kernel (DGL's gSDDMM): it computes one feature row per edge
// from the rows of its endpoints or of the edge itself, without
// materialising node features on edges first.
//
// For every edge e = (u -> v) and output element k,
//
//	out[e, k] = lhs[row(lt, e), k] OP rhs[row(rt, e), k]
//
// where row(U, e) = u, row(V, e) = v and row(E, e) = e, OP is one of Add,
// Sub, Mul, Div, Dot (a sum over the last feature dimension), CopyLHS or
// CopyRHS, and both operands broadcast over their feature dimensions as a
// bcast.Plan describes. DGL's u_add_v, u_dot_v, e_mul_v, copy_u and friends
// are all instances: u_dot_v is Forward(out, g, Dot, x, U, y, V, plan).
//
// The kernel is generic Go over float32 and float64 and imports no tensor
// framework; package ops wraps it as a Gorgonia op. On amd64 with AVX2, the
// dot products of float32 heads of eight elements (GAT's attention scores)
// and of two or four elements in rows of a multiple of eight (the gradient
// of GAT's attention weights with narrow heads), and the elementwise
// operations on float32 rows of a multiple of eight
// elements without broadcasting run in assembly (rows8_amd64.s), in the
// summation order and with the single IEEE operations of the Go code; the
// purego build tag keeps everything in Go.
//
// Work is split over contiguous edge-ID ranges of the COO lists, so output
// rows are written in order; each edge is written exactly once and computed
// independently of the others, so results are bit-identical for any
// GOMAXPROCS. (Walking CSC rows instead reuses each destination row but
// scatters the output writes over memory, which measured slower for u_dot_v
// even with all operands cached.) Within a range, the node rows of a
// small block of edges are loaded ahead of the arithmetic when the gather
// table is too large to stay cached, which keeps several cache misses in
// flight (the assembly prefetches the rows of an edge a few edges ahead
// instead). Fast paths cover equal shapes (u_add_v and u_mul_v rows),
// one-element rows (GAT's per-head scores), dot products without broadcasting
// (heads of two, four and eight summed as balanced trees), and copies, with edge features
// copied whole; broadcasting goes through the offset tables of the plan.
//
// GATv2 is a kernel of its own: GATv2's attention logits and all their
// gradients, t = zl[u] + zr[v] (+ edge features) recomputed per edge and
// never stored. It walks the in-edges of every destination, keeping that
// node's row in cache and gathering the other ends'; for the gradient of
// zl it walks the out-edges of every source, and GradAll there reads only
// a record per edge of the score gradients and the signs of t (one bit per
// element), written by the destinations' pass, not the rows of zr. In float32 it runs in AVX2
// assembly (gatv2_amd64.s) for heads of 1, 2, 4 or a multiple of 8
// features, bit-identical to its Go loops.
package sddmm
