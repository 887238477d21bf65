package train_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/train"
)

// Adam steps parameters in place, as Gorgonia's AdamSolver would, and
// zeroes their gradients.
func ExampleNewAdam() {
	eg := gorgonia.NewGraph()
	w := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(2), gorgonia.WithName("w"),
		gorgonia.WithValue(tensor.New(tensor.WithBacking([]float64{1, -1}))))
	loss, _ := gorgonia.Sum(gorgonia.Must(gorgonia.Square(w)))
	gorgonia.Grad(loss, w)
	vm := gorgonia.NewTapeMachine(eg, gorgonia.BindDualValues(w))
	defer vm.Close()
	adam, err := train.NewAdam(0.1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		vm.RunAll()
		adam.Step(gorgonia.NodesToValueGrads(gorgonia.Nodes{w}))
		vm.Reset()
	}
	fmt.Printf("%.4f\n", w.Value().Data())
	// Output: [0.7016 -0.7016]
}
