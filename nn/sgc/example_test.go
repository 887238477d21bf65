package sgc_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/sgc"
)

// SGC on a 4-node cycle with self-loops: two propagation steps computed
// once (cached), then a linear map that training would fit.
func Example() {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3, 1, 2, 3, 0}, []int32{1, 2, 3, 0, 0, 1, 2, 3})
	if err != nil {
		log.Fatal(err)
	}
	if g, err = g.AddSelfLoops(); err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{
			1, 0,
			0, 1,
			1, 1,
			0, 0,
		}))))
	layer, err := sgc.New(eg, 2, 3, sgc.WithK(2), sgc.WithCached(true), sgc.WithName("sgc"), sgc.WithSeed(1))
	if err != nil {
		log.Fatal(err)
	}
	logits, err := layer.Forward(g, x)
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
	fmt.Println("logits", logits.Shape())
	fmt.Printf("%.3f\n", logits.Value().Data())
	// Output:
	// sgc.weight (2, 3)
	// sgc.bias (3)
	// logits (4, 3)
	// [0.105 0.067 -0.694 0.147 0.077 -0.677 0.140 0.080 -0.762 0.112 0.064 -0.609]
}
