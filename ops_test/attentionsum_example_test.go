package ops_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// ExampleGATAttentionSum aggregates the features of GATAttention's example
// graph with its attention, keeping nothing per edge: node 2 gets 0.2689
// of node 0's features and 0.7311 of node 1's, node 0 all of node 2's, and
// node 1, without in-edges, zeros.
func ExampleGATAttentionSum() {
	g, _ := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{2, 2, 0})
	eg := gorgonia.NewGraph()
	node := func(name string, shape []int, vals ...float64) *gorgonia.Node {
		return gorgonia.NewTensor(eg, tensor.Float64, len(shape), gorgonia.WithName(name),
			gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(vals))))
	}
	// One head of two features per node, and the scores of each node.
	z := node("z", []int{3, 1, 2}, 1, 0, 0, 1, 5, 5)
	el := node("el", []int{3, 1, 1}, 1, 2, 0)
	er := node("er", []int{3, 1, 1}, 0, 0, -1)
	out, err := ops.GATAttentionSum(g, z, el, er, 0.2)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := gorgonia.NewTapeMachine(eg)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %.4f\n", out.Shape(), out.Value().Data())
	// Output:
	// (3, 1, 2) [5.0000 5.0000 0.0000 0.0000 0.2689 0.7311]
}
