package ops_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

func ExampleGATAttention() {
	// Node 2 has in-edges from 0 and 1 (edges 0 and 1); node 0 from 2.
	g, _ := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{2, 2, 0})
	eg := gorgonia.NewGraph()
	// One head: one left and one right score per node, shape (N, 1, 1).
	el := gorgonia.NewTensor(eg, tensor.Float64, 3, gorgonia.WithName("el"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 1, 1), tensor.WithBacking([]float64{1, 2, 0}))))
	er := gorgonia.NewTensor(eg, tensor.Float64, 3, gorgonia.WithName("er"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 1, 1), tensor.WithBacking([]float64{0, 0, -1}))))
	a, err := ops.GATAttention(g, el, er, 0.2) // softmax over in-edges of LeakyReLU(el[u] + er[v])
	if err != nil {
		fmt.Println(err)
		return
	}
	m := gorgonia.NewTapeMachine(eg)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", a.Value().Data())
	// Output:
	// [0.2689 0.7311 1.0000]
}
