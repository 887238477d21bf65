package values

import (
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestDataAll checks that DataAll reads every value in order and fails on
// a value of another dtype.
func TestDataAll(t *testing.T) {
	a := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 2, 3, 4}))
	b := tensor.New(tensor.WithShape(1), tensor.WithBacking([]float32{5}))
	got, err := DataAll[float32]([]gorgonia.Value{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got[0], []float32{1, 2, 3, 4}) || !slices.Equal(got[1], []float32{5}) {
		t.Errorf("DataAll = %v", got)
	}
	if _, err := DataAll[float64]([]gorgonia.Value{b}); err == nil {
		t.Error("DataAll[float64] of a float32 tensor succeeded")
	}
}
