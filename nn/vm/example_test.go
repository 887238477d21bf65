package vm_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/vm"
)

// ExampleMachine fits a linear model by gradient descent: one machine
// computes the loss and its gradient on every step, writing into the
// buffers of the step before, and ValueGrads hands the gradient to
// Gorgonia's Adam.
func ExampleMachine() {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float64{1, 0, 0, 1, 1, 1, 2, 1}))))
	y := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 1), gorgonia.WithName("y"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float64{3, -1, 2, 5}))))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 1), gorgonia.WithName("w"), gorgonia.WithInit(gorgonia.Zeroes()))
	diff := gorgonia.Must(gorgonia.Sub(gorgonia.Must(gorgonia.Mul(x, w)), y))
	loss := gorgonia.Must(gorgonia.Mean(gorgonia.Must(gorgonia.Square(diff))))
	grads, err := gorgonia.Grad(loss, w)
	if err != nil {
		panic(err)
	}

	m, err := vm.New(gorgonia.Nodes{loss, grads[0]})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	solver := gorgonia.NewAdamSolver(gorgonia.WithLearnRate(0.1))
	var buffers int
	for step := range 300 {
		if err := m.RunAll(); err != nil {
			panic(err)
		}
		model, err := m.ValueGrads(gorgonia.Nodes{w}, grads)
		if err != nil {
			panic(err)
		}
		if err := solver.Step(model); err != nil {
			panic(err)
		}
		if step == 0 {
			buffers = m.Stats().Buffers
		}
	}
	fmt.Printf("w = %.2f, loss %.3f\n", w.Value().Data(), loss.Value().Data())
	fmt.Println("buffers allocated after the first step:", m.Stats().Buffers-buffers)
	// Output:
	// w = [3.00 -1.00], loss 0.000
	// buffers allocated after the first step: 0
}
