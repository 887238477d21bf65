package main

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// perEdge is RelGraphConv with full weights w (R, in, out), self-loop and
// bias computed the per-edge way over the homogeneous graph g, whose
// edges' relations et are in increasing order (as ToHomogeneous numbers
// them): gather every edge's source row (E x in), multiply each
// relation's run of edges by its weight (E x out messages), scale by the
// norm and sum at the destinations (DGL's RelGraphConv over a homogeneous
// graph with sorted edge types). -impl peredge runs the model this way, for
// comparison with SegmentMatMul.
func perEdge(g *graph.Graph, et []int32, norm *gorgonia.Node, x, w, loop, bias *gorgonia.Node) (*gorgonia.Node, error) {
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
	if len(msgs) == 0 {
		return nil, fmt.Errorf("per-edge path: the graph has no edges")
	}
	m := msgs[0]
	if len(msgs) > 1 {
		if m, err = gorgonia.Concat(0, msgs...); err != nil { // E x out
			return nil, err
		}
	}
	if m, err = gorgonia.BroadcastHadamardProd(m, norm, nil, []byte{1}); err != nil {
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

// normColumn returns norm as an (E, 1) float32 node of eg.
func normColumn(eg *gorgonia.ExprGraph, norm []float64) *gorgonia.Node {
	f := make([]float32, len(norm))
	for i, v := range norm {
		f[i] = float32(v)
	}
	return gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(len(norm), 1), gorgonia.WithName("norm"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(len(norm), 1), tensor.WithBacking(f))))
}
