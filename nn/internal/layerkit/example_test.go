package layerkit_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// A layer package declares its configuration around layerkit.Config, one
// Kit for its options, and builds its parameters with Params (newToy, in
// this package's tests, is such a constructor).
func ExampleKit() {
	heads := func(h int) toyOption {
		return kit.AtLeast("heads", h, 1, func(c *toy) *int { return &c.heads })
	}
	eg := gorgonia.NewGraph()
	_, ps, err := newToy(eg, 3, heads(2), kit.Dtype(tensor.Float64))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range ps {
		fmt.Println(p.Name(), p.Shape(), p.Dtype())
	}
	_, _, err = newToy(eg, 3, heads(0))
	fmt.Println(err)
	// Output:
	// toy1.weight (3, 2) float64
	// toy1.attn (1, 2, 1) float64
	// toy1.bias (2) float64
	// toy1.eps (1, 1) float64
	// toy: heads 0, want at least 1
}

var _ layerkit.Configured = (*toy)(nil)
