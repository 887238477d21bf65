package gcn_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/gcn"
)

// A two-layer GCN on a 4-node cycle with self-loops, run once.
func Example() {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3}, []int32{1, 2, 3, 0})
	if err != nil {
		log.Fatal(err)
	}
	if g, err = g.AddSelfLoops(); err != nil {
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
	l1, err := gcn.New(eg, 3, 4, gcn.WithName("l1"), gcn.WithSeed(1), gcn.WithActivation(gorgonia.Rectify))
	if err != nil {
		log.Fatal(err)
	}
	l2, err := gcn.New(eg, 4, 2, gcn.WithName("l2"), gcn.WithSeed(3))
	if err != nil {
		log.Fatal(err)
	}
	h, err := l1.Forward(g, x)
	if err != nil {
		log.Fatal(err)
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	for _, p := range append(l1.Learnables(), l2.Learnables()...) {
		fmt.Println(p.Name(), p.Shape())
	}
	fmt.Println("logits", logits.Shape())
	fmt.Printf("%.3f\n", logits.Value().Data())
	// Output:
	// l1.weight (3, 4)
	// l1.bias (4)
	// l2.weight (4, 2)
	// l2.bias (2)
	// logits (4, 2)
	// [-0.004 0.008 -0.005 0.010 -0.016 0.031 -0.015 0.030]
}
