package appnp_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/appnp"
)

// Personalized PageRank from node 0 of a 4-node path with self-loops:
// the predictions x (here one-hot scores) spread over 10 steps with
// teleport probability 0.1.
func Example() {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 1, 2, 2, 3}, []int32{1, 0, 2, 1, 3, 2})
	if err != nil {
		log.Fatal(err)
	}
	if g, err = g.AddSelfLoops(); err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 1), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float64{1, 0, 0, 0}))))
	layer, err := appnp.New(10, 0.1)
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
	fmt.Printf("%.3f\n", h.Value().Data())
	// Output:
	// [0.360 0.263 0.170 0.111]
}
