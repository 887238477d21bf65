package ops_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// The cosine of node pairs: a pair graph over 3 embedding rows whose edges
// are the pairs (0, 1), (0, 2) and (1, 1).
func ExampleUCosV() {
	pairs, _ := graph.FromCOO(3, 3, []int32{0, 0, 1}, []int32{1, 2, 1})
	eg := gorgonia.NewGraph()
	h := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 2), gorgonia.WithName("h"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{1, 0, 1, 1, -2, 0}))))
	s, err := ops.UCosV(pairs, h, h, 1e-8) // (3, 1)
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
	fmt.Printf("%.4f\n", s.Value().Data())
	// Output:
	// [0.7071 -1.0000 1.0000]
}

// DistMult scores of pairs under two relations: sum_f h[u,f] w[r,f] h[v,f].
func ExampleDistMult() {
	pairs, _ := graph.FromCOO(2, 2, []int32{0, 0}, []int32{1, 1})
	eg := gorgonia.NewGraph()
	h := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("h"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 2, 3, 4}))))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("w"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 0, 0.5, -1}))))
	s, err := ops.DistMult(pairs, h, w, h, []int32{0, 1}) // edge 0 under relation 0, edge 1 under 1
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
	fmt.Println(s.Value().Data())
	// Output:
	// [3 -6.5]
}
