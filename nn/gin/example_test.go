package gin_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gin"
)

// A GIN-ε layer whose apply function is a one-hidden-layer MLP the caller
// builds; listing the MLP's weights in WithApply makes Learnables return
// them after ε.
func Example() {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3, 0}, []int32{1, 2, 3, 0, 2})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float64{
			1, 0,
			0, 1,
			1, 1,
			0, 0,
		}))))
	param := func(name string, seed uint64, rows, cols int) *gorgonia.Node {
		v, err := nn.Glorot(tensor.Float64, seed, 1, rows, cols)
		if err != nil {
			log.Fatal(err)
		}
		return nn.Param(eg, name, v)
	}
	w1, w2 := param("mlp.w1", 1, 2, 8), param("mlp.w2", 2, 8, 3)
	mlp := func(h *gorgonia.Node) (*gorgonia.Node, error) {
		h, err := gorgonia.Mul(h, w1)
		if err != nil {
			return nil, err
		}
		if h, err = gorgonia.Rectify(h); err != nil {
			return nil, err
		}
		return gorgonia.Mul(h, w2)
	}
	layer, err := gin.New(eg, 2, 3, gin.WithName("gin"), gin.WithLearnEps(true), gin.WithEps(0.1),
		gin.WithApply(mlp, w1, w2), gin.WithDtype(tensor.Float64))
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
	// gin.eps (1, 1)
	// mlp.w1 (2, 8)
	// mlp.w2 (8, 3)
	// (4, 3) [0.059 0.165 -0.085 0.144 0.232 -0.169 0.299 0.476 -0.333 0.142 0.227 -0.159]
}
