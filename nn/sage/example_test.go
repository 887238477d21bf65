package sage_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/sage"
)

// A mean-aggregator SAGEConv on a 4-node cycle. No self-loops are needed:
// the layer adds each node's own features through fc_self.
func Example() {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3}, []int32{1, 2, 3, 0})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 3), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{
			1, 0, 0,
			0, 1, 0,
			0, 0, 1,
			1, 1, 1,
		}))))
	layer, err := sage.New(eg, 3, 2, sage.WithName("sage"))
	if err != nil {
		log.Fatal(err)
	}
	h, err := layer.Forward(g, x)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	for _, p := range layer.Learnables() {
		fmt.Println(p.Name(), p.Shape())
	}
	fmt.Printf("%v %.3f\n", h.Shape(), h.Value().Data())
	// Output:
	// sage.fc_self.weight (3, 2)
	// sage.fc_neigh.weight (3, 2)
	// sage.bias (2)
	// (4, 2) [-0.593 -1.092 -0.043 -1.337 1.608 1.142 1.730 -0.420]
}

// A pool-aggregator SAGEConv on a message-flow block: 2 destination nodes
// that are also the first 2 of 5 source nodes, as a neighbour sampler
// builds them.
func Example_block() {
	// Destination 0 samples sources 2 and 3; destination 1 samples 3 and 4.
	block, err := graph.FromCOO(5, 2, []int32{2, 3, 3, 4}, []int32{0, 0, 1, 1})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(5, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(5, 2), tensor.WithBacking([]float64{
			1, 0,
			0, 1,
			1, 1,
			-1, 2,
			2, -1,
		}))))
	layer, err := sage.New(eg, 2, 3, sage.WithAggregator(sage.Pool), sage.WithDtype(tensor.Float64), sage.WithSeed(5))
	if err != nil {
		log.Fatal(err)
	}
	h, err := layer.Forward(block, x)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v %.3f\n", h.Shape(), h.Value().Data())
	// Output:
	// (2, 3) [-0.305 0.547 -0.951 0.530 -3.156 0.056]
}
