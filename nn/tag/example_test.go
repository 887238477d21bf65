package tag_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/tag"
)

// TAGConv on a 4-node cycle with self-loops: the features and their one-
// and two-hop propagations, side by side, through one linear map.
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
	layer, err := tag.New(eg, 2, 3, tag.WithK(2), tag.WithName("tag"), tag.WithSeed(1), tag.WithActivation(nn.ReLU))
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
	// tag.weight (6, 3)
	// tag.bias (3)
	// logits (4, 3)
	// [0.649 0.000 0.000 0.871 0.000 0.000 1.100 0.051 0.000 0.420 0.000 0.430]
}
