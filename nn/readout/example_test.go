package readout_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/readout"
)

// Attention pooling over a batch of two graphs, with a gate that scores a
// node by its second feature: each graph's readout is the average of its
// node rows weighted by the softmax of those scores.
func ExampleGlobalAttentionPooling() {
	a, _ := graph.FromCOO(2, 2, []int32{0}, []int32{1})
	c, _ := graph.FromCOO(3, 3, []int32{0, 1}, []int32{1, 2})
	b, err := graph.Batch([]*graph.Graph{a, c})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(5, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(5, 2), tensor.WithBacking([]float64{
			1, 0, // graph 0
			3, 0,
			1, 0, // graph 1
			2, 1,
			4, 2,
		}))))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 1), gorgonia.WithName("gate.w"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(2, 1), tensor.WithBacking([]float64{0, 1}))))
	pool, err := readout.NewGlobalAttentionPooling(func(h *gorgonia.Node) (*gorgonia.Node, error) {
		return gorgonia.Mul(h, w)
	}, gorgonia.Nodes{w})
	if err != nil {
		log.Fatal(err)
	}
	r, att, err := pool.ForwardAttention(b, x)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("attention %.3f\n", att.Value().Data())
	fmt.Printf("readout %.3f\n", r.Value().Data())
	// Output:
	// attention [0.500 0.500 0.090 0.245 0.665]
	// readout [2.000 0.000 3.240 1.575]
}
