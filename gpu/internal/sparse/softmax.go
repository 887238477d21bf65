//go:build gnncuda

package sparse

import (
	"fmt"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/ops/edgesoftmax"
)

// EdgeSoftmax computes edgesoftmax.Forward on the device: the softmax of
// score (width columns per edge) over the edges that share a destination
// (ByDst) or a source (BySrc), per column, with the group maximum
// subtracted and the exponentials computed and summed in float64. out may
// be score itself.
func EdgeSoftmax[T num.Float](g *Graph, out Buf, norm edgesoftmax.Norm, score Buf, width int) error {
	v, rows, err := g.groups(norm, width, out, score)
	if err != nil {
		return err
	}
	n := int64(rows) * int64(width)
	return launch[T](g.s.c, "gnn_edge_softmax", n, out.Ptr, v.ptr, v.eid, score.Ptr, int32(rows), int32(width))
}

// EdgeSoftmaxBackward computes edgesoftmax.Backward on the device:
// dScore[e] = y[e] * (dy[e] - the sum over e's group of y*dy), per column,
// with the sums in float64. dScore may be y or dy itself.
func EdgeSoftmaxBackward[T num.Float](g *Graph, dScore Buf, norm edgesoftmax.Norm, y, dy Buf, width int) error {
	v, rows, err := g.groups(norm, width, dScore, y, dy)
	if err != nil {
		return err
	}
	n := int64(rows) * int64(width)
	return launch[T](g.s.c, "gnn_edge_softmax_grad", n, dScore.Ptr, v.ptr, v.eid, y.Ptr, dy.Ptr, int32(rows), int32(width))
}

// Attention computes edgesoftmax.Attention on the device: GAT's attention,
// the softmax by destination of LeakyReLU(el[u] + er[v]) with the given
// negative slope, width heads per edge; el has width elements per source
// node and er per destination node. The scores are recomputed in each
// pass, never stored per edge.
func Attention[T num.Float](g *Graph, out, el, er Buf, slope float64, width int) error {
	if err := g.checkAttention(width, el, er, out); err != nil {
		return err
	}
	n := int64(g.numDst) * int64(width)
	return launch[T](g.s.c, "gnn_gat_attention", n, out.Ptr, g.in.ptr, g.in.idx, g.in.eid, el.Ptr, er.Ptr, T(slope), int32(g.numDst), int32(width))
}

// AttentionBackward computes edgesoftmax.AttentionBackward on the device:
// the gradient with respect to el[u] + er[v] (before the LeakyReLU), given
// Attention's output y and its gradient dy. The gradients of el and er are
// its sums over out-edges and in-edges: SpMM copy_e + sum on g.Reverse()
// and on g. dScore may be y or dy itself.
func AttentionBackward[T num.Float](g *Graph, dScore, el, er Buf, slope float64, y, dy Buf, width int) error {
	if err := g.checkAttention(width, el, er, dScore, y, dy); err != nil {
		return err
	}
	n := int64(g.numDst) * int64(width)
	return launch[T](g.s.c, "gnn_gat_attention_grad", n, dScore.Ptr, g.in.ptr, g.in.idx, g.in.eid, el.Ptr, er.Ptr, T(slope), y.Ptr, dy.Ptr, int32(g.numDst), int32(width))
}

// groups checks the per-edge buffers of a softmax and returns the view
// whose rows are its groups and their number.
func (g *Graph) groups(norm edgesoftmax.Norm, width int, edges ...Buf) (view, int, error) {
	if err := g.live(); err != nil {
		return view{}, 0, err
	}
	if width < 0 {
		return view{}, 0, fmt.Errorf("sparse: negative softmax width %d", width)
	}
	for i, b := range edges {
		if err := checkBuf(fmt.Sprintf("per-edge operand %d", i), b, g.s.numEdges, width); err != nil {
			return view{}, 0, err
		}
	}
	switch norm {
	case edgesoftmax.ByDst:
		return g.in, g.numDst, nil
	case edgesoftmax.BySrc:
		return g.out, g.numSrc, nil
	}
	return view{}, 0, fmt.Errorf("sparse: unknown softmax normalisation %v", norm)
}

// checkAttention checks the node operands el, er and the per-edge buffers
// of an attention call.
func (g *Graph) checkAttention(width int, el, er Buf, edges ...Buf) error {
	if _, _, err := g.groups(edgesoftmax.ByDst, width, edges...); err != nil {
		return err
	}
	if err := checkBuf("el", el, g.numSrc, width); err != nil {
		return err
	}
	return checkBuf("er", er, g.numDst, width)
}
