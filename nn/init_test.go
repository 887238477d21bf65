package nn_test

import (
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// TestInitial checks that Initial takes a known tensor of the right dtype
// and shape and draws otherwise.
func TestInitial(t *testing.T) {
	known := nn.Zeros(tensor.Float32, 2, 3)
	values := nn.Values(func(name string) *tensor.Dense {
		if name == "w" {
			return known
		}
		return nil
	})
	drawn := 0
	draw := func() (*tensor.Dense, error) { drawn++; return nn.Zeros(tensor.Float32, 2, 3), nil }
	for _, c := range []struct {
		values nn.Values
		name   string
		dt     tensor.Dtype
		shape  []int
		known  bool
	}{
		{values, "w", tensor.Float32, []int{2, 3}, true},
		{values, "w", tensor.Float32, []int{3, 2}, false},
		{values, "w", tensor.Float64, []int{2, 3}, false},
		{values, "b", tensor.Float32, []int{2, 3}, false},
		{nil, "w", tensor.Float32, []int{2, 3}, false},
	} {
		before := drawn
		v, err := nn.Initial(c.values, c.name, c.dt, c.shape, draw)
		if err != nil {
			t.Fatal(err)
		}
		if got := v == known; got != c.known || (drawn > before) == c.known {
			t.Errorf("%s %v %v: known tensor %v (want %v), drew %d", c.name, c.dt, c.shape, got, c.known, drawn-before)
		}
	}
}
