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

// TestDataTo checks that DataTo reads the first len(out) values in order,
// ignoring the others, and fails on a value of another dtype.
func TestDataTo(t *testing.T) {
	a := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{1, 2}))
	b := tensor.New(tensor.WithShape(1), tensor.WithBacking([]float64{3}))
	c := tensor.New(tensor.WithShape(1), tensor.WithBacking([]float32{4}))
	var out [2][]float64
	if err := DataTo(out[:], []gorgonia.Value{a, b, c}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out[0], []float64{1, 2}) || !slices.Equal(out[1], []float64{3}) {
		t.Errorf("DataTo = %v", out)
	}
	if err := DataTo(make([][]float64, 3), []gorgonia.Value{a, b, c}); err == nil {
		t.Error("DataTo[float64] of a float32 tensor succeeded")
	}
}
