package nn

import (
	"testing"

	"gorgonia.org/tensor"
)

func TestRowLines(t *testing.T) {
	// 64 times the mean lines per row.
	for _, c := range []struct{ b, want int }{
		{64, 64}, {128, 128}, {40, 96}, {4, 64}, {28, 88}, {256, 256}, {0, 0},
	} {
		if got := rowLines(c.b); got != c.want {
			t.Errorf("rowLines(%d) = %d, want %d", c.b, got, c.want)
		}
	}
}

func TestProjectFirst(t *testing.T) {
	for _, c := range []struct {
		in, out int
		dt      tensor.Dtype
		want    bool
	}{
		{64, 16, tensor.Float32, true},   // 4 lines to 1
		{1433, 16, tensor.Float32, true}, // many lines to 1
		{16, 10, tensor.Float32, false},  // 1 line against 1.5
		{16, 7, tensor.Float32, false},   // 1 line against 1.375
		{16, 10, tensor.Float64, true},   // 2 lines each: the narrower
		{16, 64, tensor.Float32, false},  // widening
		{40, 16, tensor.Float32, true},   // 2.5 lines to 1
		{10, 10, tensor.Float32, false},  // equal: no multiplication first
	} {
		if got := ProjectFirst(c.in, c.out, c.dt); got != c.want {
			t.Errorf("ProjectFirst(%d, %d, %v) = %v, want %v", c.in, c.out, c.dt, got, c.want)
		}
	}
}
