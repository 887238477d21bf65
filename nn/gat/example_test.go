package gat_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
)

// A two-head attention layer on a 3-node path with self-loops, in
// evaluation mode (dropout off), returning the attention weights too.
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
	mode := nn.NewMode()
	layer, err := gat.New(eg, 2, 3, gat.WithHeads(2), gat.WithSeed(1), gat.WithMode(mode),
		gat.WithFeatDropout(0.5), gat.WithAttnDropout(0.5), gat.WithActivation(nn.ELU))
	if err != nil {
		log.Fatal(err)
	}
	h, attn, err := layer.ForwardWithAttention(g, x)
	if err != nil {
		log.Fatal(err)
	}
	mode.Eval()
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("output", h.Shape(), "attention", attn.Shape())
	// Per edge and head: node 0 has only its loop (edge 2), so 1; node 1
	// splits its attention between 0 -> 1 (edge 0) and its loop (edge 3).
	fmt.Printf("%.3f\n", attn.Value().Data())
	// Output:
	// output (3, 6) attention (5, 2, 1)
	// [0.243 0.221 0.711 0.595 1.000 1.000 0.757 0.779 0.289 0.405]
}
