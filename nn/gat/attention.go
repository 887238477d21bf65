package gat

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// Attention is GATConv's attention and aggregation as an nn.Aggregation,
// which the layer builds with nn.On on every placement. Its inputs are
// (z, al, ar, ew): the projected features z (N, H, F), the attention
// vectors al and ar (1, H, F), and optional edge weights ew (E, 1), nil
// for none. The result (NumDst, H*F) is
//
//	ops.UMulESum(g, z, Dropout(ops.GATAttention(g, el, er, Slope)) * ew)
//
// with the heads side by side, where el[n,h] = sum_f z[n,h,f] al[h,f] is
// the score of every source and er that of every destination under ar (a
// destination's row of z is its row as a source, the first NumDst). On a
// graph without edges every sum is zero and the scores still reach the
// result, so that al and ar get their zero gradients, as in DGL.
//
// On a Sharded graph (dist/sar) the same value builds the distributed
// aggregation, where the edge weights are constants and the attention
// dropout masks are those of one process on the whole graph.
type Attention struct {
	Name  string // the layer's, in error messages; may be empty
	Slope float64
	Drop  nn.DropoutSpec // attention dropout; P 0 for none
	// EdgeIDs, when not nil, holds the global ID of every edge of the graph
	// Local runs on (a worker's block of a sharded graph): the attention
	// dropout then draws the masks of one process on the whole graph, by
	// edge ID.
	EdgeIDs []int64
	// Recompute computes the attention and the aggregation in one op that
	// keeps nothing per edge for the backward, which recomputes the
	// attention (ops.GATAttentionSum), when the attention has no dropout
	// (P 0), edge weights or edge term; otherwise it has no effect.
	Recompute bool
}

// Local builds the aggregation on g.
func (a Attention) Local(g *graph.Graph, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	if len(in) != 4 || in[0] == nil || in[1] == nil || in[2] == nil {
		return nil, fmt.Errorf("%sAttention takes (z, al, ar, edge weights or nil), got %d inputs", a.prefix(), len(in))
	}
	rst, _, err := a.on(g, in[0], nil, in[1], in[2], in[3], nil)
	return rst, err
}

// on is Local with the layer's other modes: zDst, if not nil, holds the
// projected destination features (NumDst, H, F), for the destination
// scores; ee, if not nil, the edge term (E, H, 1) added to every score. It
// also returns the attention (E, H, 1), after dropout and edge weights
// (nil on a graph without edges).
func (a Attention) on(g *graph.Graph, z, zDst, al, ar, ew, ee *gorgonia.Node) (rst, attn *gorgonia.Node, err error) {
	s := z.Shape()
	if len(s) != 3 {
		return nil, nil, fmt.Errorf("%sprojected features %q have shape %v, want (N, heads, features)", a.prefix(), z.Name(), s)
	}
	n, h, f := s[0], s[1], s[2]
	el, err := headScores(z, al, n, h)
	if err != nil {
		return nil, nil, err
	}
	var er, erSrc *gorgonia.Node
	if zDst != nil {
		if er, err = headScores(zDst, ar, g.NumDst(), h); err != nil {
			return nil, nil, err
		}
	} else {
		if erSrc, err = headScores(z, ar, n, h); err != nil {
			return nil, nil, err
		}
		// On a block the destinations are the first sources: their scores
		// are the first rows (isolated still sums the scores of all sources).
		if er, err = nn.DstRows(g, erSrc); err != nil {
			return nil, nil, err
		}
	}
	if g.NumEdges() == 0 {
		rst, err := a.isolated(g, z, el, erSrc, er, ew)
		if err != nil {
			return nil, nil, err
		}
		rst, err = gorgonia.Reshape(rst, tensor.Shape{g.NumDst(), h * f})
		return rst, nil, err
	}
	if a.recomputes(ew, ee) {
		return a.recompute(g, z, el, er)
	}
	if attn, err = a.scores(g, el, er, ee); err != nil {
		return nil, nil, err
	}
	if d := a.Drop; d.P > 0 {
		if a.EdgeIDs != nil {
			// The masks of one process on the whole graph, by edge ID.
			attn, err = nn.DropoutRows(attn, d.P, d.Seed, d.Mode, a.EdgeIDs)
		} else {
			attn, err = nn.Dropout(attn, d.P, d.Seed, d.Mode)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if ew != nil {
		if attn, err = ops.EMulE(g, attn, ew); err != nil {
			return nil, nil, fmt.Errorf("%sedge weight: %w", a.prefix(), err)
		}
	}
	if rst, err = ops.UMulESum(g, z, attn); err != nil { // (NumDst, H, F)
		return nil, nil, err
	}
	rst, err = gorgonia.Reshape(rst, tensor.Shape{g.NumDst(), h * f})
	return rst, attn, err
}

// scores is the attention before dropout, the edge softmax of
// LeakyReLU(el[u] + er[v]) in one op, (E, H, 1); with an edge term ee,
// that of LeakyReLU(el[u] + er[v] + ee[e]), which keeps four (E, H, 1)
// tensors where GATAttention keeps one.
func (a Attention) scores(g *graph.Graph, el, er, ee *gorgonia.Node) (*gorgonia.Node, error) {
	if ee == nil {
		return ops.GATAttention(g, el, er, a.Slope)
	}
	s, err := ops.UAddV(g, el, er)
	if err != nil {
		return nil, err
	}
	if s, err = gorgonia.Add(s, ee); err != nil {
		return nil, err
	}
	if s, err = gorgonia.LeakyRelu(s, a.Slope); err != nil {
		return nil, err
	}
	return ops.EdgeSoftmax(g, s, ops.ByDst)
}

// isolated is the aggregation on a graph without edges: there is no
// attention (it would be an empty tensor, which Gorgonia cannot compute
// with) and every sum is zero, (NumDst, H, F). The scores el and er still
// reach it, through sums over no in-edges, so that their parameters get
// their zero gradients, as in DGL.
// er holds the destination scores of all sources; on a relation between
// two node sets it is nil and erDst holds the destinations' own, which
// reach the output through a sum over the reversed graph's no in-edges.
func (a Attention) isolated(g *graph.Graph, z, el, er, erDst, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if ew != nil && ew.Shape().TotalSize() != 0 {
		return nil, fmt.Errorf("%sedge weight %q has shape %v but the graph has no edges", a.prefix(), ew.Name(), ew.Shape())
	}
	rst, err := ops.CopyUSum(g, z) // (N, H, F) zeros
	if err != nil {
		return nil, err
	}
	if er == nil {
		if er, err = ops.CopyUSum(g.Reverse(), erDst); err != nil { // (NumSrc, H, 1) zeros
			return nil, err
		}
	}
	s, err := gorgonia.Add(el, er)
	if err != nil {
		return nil, err
	}
	if s, err = ops.CopyUSum(g, s); err != nil { // (N, H, 1) zeros
		return nil, err
	}
	return gorgonia.BroadcastAdd(rst, s, nil, []byte{2})
}

// prefix starts the aggregation's error messages: "gat: NAME: ", or
// "gat: " without a name.
func (a Attention) prefix() string {
	if a.Name == "" {
		return "gat: "
	}
	return "gat: " + a.Name + ": "
}

var _ nn.Aggregation = Attention{}
