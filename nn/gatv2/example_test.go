package gatv2_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gatv2"
)

// A two-head GATv2 layer on a 3-node path with self-loops, with one edge
// feature per edge in the attention, returning the attention weights too.
func Example() {
	g, err := graph.FromCOO(3, 3, []int32{0, 1}, []int32{1, 2})
	if err != nil {
		log.Fatal(err)
	}
	if g, err = g.AddSelfLoops(); err != nil { // edges 2, 3, 4 are the loops
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(3, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float32{
			1, 0,
			0, 1,
			1, 1,
		}))))
	ef := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(5, 1), gorgonia.WithName("ef"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(5, 1), tensor.WithBacking([]float32{1, 1, 0, 0, 0}))))
	layer, err := gatv2.New(eg, 2, 3, gatv2.WithHeads(2), gatv2.WithName("l1"), gatv2.WithSeed(1),
		gatv2.WithEdgeFeatures(1), gatv2.WithActivation(nn.ELU))
	if err != nil {
		log.Fatal(err)
	}
	h, attn, err := layer.ForwardEdges(g, x, ef)
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
	fmt.Println("output", h.Shape(), "attention", attn.Shape())
	// Per edge and head: node 0 has only its loop (edge 2), so 1.
	fmt.Printf("%.3f\n", attn.Value().Data())
	// Output:
	// l1.weight_src (2, 6)
	// l1.bias_src (6)
	// l1.weight_dst (2, 6)
	// l1.bias_dst (6)
	// l1.attn (1, 2, 3)
	// l1.edge_weight (1, 6)
	// output (3, 6) attention (5, 2, 1)
	// [0.503 0.510 0.444 0.714 1.000 1.000 0.497 0.490 0.556 0.286]
}
