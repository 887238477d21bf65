package sar_test

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
)

// unknownAgg is an aggregation the sharded graph does not implement.
type unknownAgg struct{}

func (unknownAgg) Local(g *graph.Graph, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	return in[0], nil
}

// TestAggregateErrors checks that Aggregate names an aggregation it does
// not implement and rejects malformed inputs, on every rank.
func TestAggregateErrors(t *testing.T) {
	g := rmatGraph(t)
	parts, err := partition.Split(g, owners(g, 2, 4, false), 2)
	if err != nil {
		t.Fatal(err)
	}
	err = comm.RunInProcess(2, func(c comm.Comm) error {
		sg, err := sar.New(parts[c.Rank()], c)
		if err != nil {
			return err
		}
		eg := gorgonia.NewGraph()
		n := sg.NumSrc()
		x := gradcheck.Input(eg, tensor.Float64, "x", []int{n, 2}, make([]float64, 2*n))
		ew := gradcheck.Input(eg, tensor.Float64, "ew", []int{sg.NumEdges(), 1}, make([]float64, sg.NumEdges()))
		for _, k := range []struct {
			a    nn.Aggregation
			in   []*gorgonia.Node
			want string
		}{
			{unknownAgg{}, []*gorgonia.Node{x}, "sar_test.unknownAgg aggregation is not supported on a sharded graph"},
			{nn.NormSum{Src: -0.5, SrcIn: true}, []*gorgonia.Node{x, ew}, "in-degree source scaling takes no edge weights"},
			{nn.NormSum{}, []*gorgonia.Node{nil, nil}, "input 0 is nil"},
			{nn.Reduction{}, []*gorgonia.Node{x, ew, ew}, "nn.Reduction takes 1 inputs and edge weights (or nil), got 3"},
		} {
			if _, err := nn.On(sg, k.a, k.in...); err == nil || !strings.Contains(err.Error(), k.want) {
				t.Errorf("%T: error %v, want one containing %q", k.a, err, k.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
