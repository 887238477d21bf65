package rgcn

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// PerEdge computes what a RelGraphConv with full weights w (R, in, out),
// self-loop weight loop (in, out) and bias (out) computes, the per-edge way
// over the homogeneous graph g (DGL's RelGraphConv on a homogeneous graph
// with sorted edge types): it gathers every edge's source row (an E x in
// tensor), multiplies each relation's run of edges by its weight (E x out
// messages), scales them by norm (one value per edge, as RightNorm gives)
// and sums them at the destinations. The relations et of g's edges must be
// in increasing order of edge ID, as graph/hetero's ToHomogeneous numbers
// them. It is the baseline SegmentMatMul is measured against, with the
// memory of E x F tensors; layers use SegmentMatMul.
func PerEdge(g *graph.Graph, et []int32, norm []float64, x, w, loop, bias *gorgonia.Node) (*gorgonia.Node, error) {
	if g == nil || x == nil || w == nil || loop == nil || bias == nil {
		return nil, fmt.Errorf("rgcn: PerEdge: nil graph or node")
	}
	if len(et) != g.NumEdges() || len(norm) != g.NumEdges() {
		return nil, fmt.Errorf("rgcn: PerEdge: %d edge types and %d norms for a graph of %d edges", len(et), len(norm), g.NumEdges())
	}
	if g.NumEdges() == 0 {
		return nil, fmt.Errorf("rgcn: PerEdge: the graph has no edges")
	}
	if w.Dims() != 3 {
		return nil, fmt.Errorf("rgcn: PerEdge: weights of shape %v, want (relations, in, out)", w.Shape())
	}
	for e := 1; e < len(et); e++ {
		if et[e] < et[e-1] {
			return nil, fmt.Errorf("rgcn: PerEdge: edge %d has relation %d after relation %d: relations must increase with edge ID", e, et[e], et[e-1])
		}
	}
	if r := w.Shape()[0]; et[0] < 0 || int(et[len(et)-1]) >= r {
		return nil, fmt.Errorf("rgcn: PerEdge: relations %d..%d, but the weights hold %d", et[0], et[len(et)-1], r)
	}
	edges, err := ops.CopyU(g, x) // E x in
	if err != nil {
		return nil, err
	}
	var msgs gorgonia.Nodes
	start := 0
	for r := range w.Shape()[0] {
		end, _ := slices.BinarySearch(et, int32(r)+1)
		if end == start {
			continue
		}
		er, err := gorgonia.Slice(edges, gorgonia.S(start, end))
		if err != nil {
			return nil, err
		}
		wr, err := gorgonia.Slice(w, gorgonia.S(r))
		if err != nil {
			return nil, err
		}
		mr, err := nn.MatMul(er, wr)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, mr)
		start = end
	}
	m := msgs[0]
	if len(msgs) > 1 {
		if m, err = gorgonia.Concat(0, msgs...); err != nil { // E x out
			return nil, err
		}
	}
	c := gorgonia.NewMatrix(x.Graph(), x.Dtype(), gorgonia.WithShape(len(norm), 1), gorgonia.WithName(nn.UniqueName(x.Graph(), "norm")),
		gorgonia.WithValue(normColumn(x.Dtype(), norm)))
	if m, err = gorgonia.BroadcastHadamardProd(m, c, nil, []byte{1}); err != nil {
		return nil, err
	}
	h, err := ops.CopyESum(g, m)
	if err != nil {
		return nil, err
	}
	y, err := nn.MatMul(x, loop)
	if err != nil {
		return nil, err
	}
	if h, err = gorgonia.Add(h, y); err != nil {
		return nil, err
	}
	return nn.AddBias(h, bias)
}

// normColumn returns v as an (E, 1) tensor of dtype dt.
func normColumn(dt tensor.Dtype, v []float64) *tensor.Dense {
	if dt == tensor.Float64 {
		return tensor.New(tensor.WithShape(len(v), 1), tensor.WithBacking(slices.Clone(v)))
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensor.New(tensor.WithShape(len(v), 1), tensor.WithBacking(f))
}
