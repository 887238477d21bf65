package gat

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// WithRecompute makes the layer keep nothing per edge for the backward
// (default off): the attention and the aggregation run as one op
// (ops.GATAttentionSum) whose backward recomputes the attention from the
// per-node scores, where the default keeps the (E, H) attention and makes
// two more (E, H) tensors in the backward. It saves 3 x E x H numbers of
// memory per layer (2.1 GB per layer at 66M edges and 8 heads in float32)
// for a second computation of the scores and their exponentials.
// Measured on 2026-11-28 (gnnbench -suite scale, the ogbn-products-sized
// GAT of 8 heads of 8 on 2.4M nodes and 64M edges, nn/vm, no GOMEMLIMIT,
// a heavily shared 2-core machine): peak RSS 6.8 GiB instead of 13.0 GiB,
// an epoch 379 s instead of 317 s. The kernels are Go where the default's
// are AVX2, so on small graphs, where memory is not the limit, an epoch
// takes about twice as long (Cora, PubMed): it is off by default.
//
// It applies to Forward, ForwardSparse and ForwardWeighted's sharded form
// on a graph held by one process, when the layer has no attention dropout
// (WithAttnDropout 0); with attention dropout, edge weights, edge features,
// destination features or the attention returned the layer keeps the
// attention as by default. In float64 the results are those of the
// default; in float32 they agree to rounding but not bit for bit (the
// default's vector kernels round differently), so a model's loss trace
// changes in its last bits when the option is switched. On a distributed
// graph (dist/sar) the aggregation already recomputes, and the option has
// no effect.
func WithRecompute(on bool) Option { return func(c *config) error { c.recompute = on; return nil } }

// recomputes reports whether the aggregation recomputes the attention: it
// was asked for and nothing per edge enters the attention (edge weights
// ew, the edge term ee, dropout).
func (a Attention) recomputes(ew, ee *gorgonia.Node) bool {
	return a.Recompute && ew == nil && ee == nil && a.Drop.P == 0
}

// recompute is the aggregation by ops.GATAttentionSum of the projected
// features z (N, H, F) with the scores el and er, (NumDst, H*F); it returns
// no attention.
func (a Attention) recompute(g *graph.Graph, z, el, er *gorgonia.Node) (rst, attn *gorgonia.Node, err error) {
	rst, err = ops.GATAttentionSum(g, z, el, er, a.Slope) // (NumDst, H, F)
	if err != nil {
		return nil, nil, err
	}
	s := z.Shape()
	rst, err = gorgonia.Reshape(rst, tensor.Shape{g.NumDst(), s[1] * s[2]})
	return rst, nil, err
}

// kept returns a with Recompute off, for the modes that return the
// attention.
func (a Attention) kept() Attention {
	a.Recompute = false
	return a
}
