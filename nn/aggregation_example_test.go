package nn_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
)

// A layer states what it aggregates as a value and builds it with On,
// which runs the value's Local on a *graph.Graph and hands it to the
// placement's Aggregate on a Sharded graph (dist/sar's), so the layer has
// one code path for both.
func ExampleOn() {
	g, err := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{1, 2, 1})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 1), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 1), tensor.WithBacking([]float64{1, 2, 4}))))
	// The mean of the in-neighbours' rows: the sum over in-edges scaled
	// by in-degree^-1 (no edge weights).
	h, err := nn.On(g, nn.NormSum{Src: 0, Dst: -1}, x, nil)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Value().Data())
	// Output:
	// [0 2.5 2]
}
