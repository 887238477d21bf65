package cheb_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/cheb"
)

// A ChebConv of three Chebyshev terms on a triangle with a tail, rescaled by the
// Laplacian's largest eigenvalue as LambdaMax estimates it.
func Example() {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 1, 2, 2, 0, 2, 3}, []int32{1, 0, 2, 1, 0, 2, 3, 2})
	if err != nil {
		log.Fatal(err)
	}
	lambda, err := cheb.LambdaMax(g)
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
	layer, err := cheb.New(eg, 2, 3, 3, cheb.WithName("cheb"), cheb.WithSeed(1), cheb.WithDtype(tensor.Float64))
	if err != nil {
		log.Fatal(err)
	}
	h, err := layer.ForwardLambda(g, x, lambda)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("lambda_max %.4f\n", lambda)
	for _, p := range layer.Learnables() {
		fmt.Println(p.Name(), p.Shape())
	}
	fmt.Printf("%.3f\n", h.Value().Data())
	// Output:
	// lambda_max 1.7287
	// cheb.weight (6, 3)
	// cheb.bias (3)
	// [0.386 0.000 0.000 1.006 0.472 0.000 1.507 0.000 0.000 0.413 0.017 0.216]
}
