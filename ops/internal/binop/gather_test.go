package binop

import "testing"

// TestGather checks every elementwise operator against the arithmetic on
// the offsets' elements, and that another operator leaves o alone.
func TestGather(t *testing.T) {
	x, y := []float64{1, 2, 3}, []float64{4, 8}
	xo, yo := []int{2, 0, 1, 1}, []int{0, 0, 1, 1}
	for op, want := range map[Op][]float64{
		Add: {7, 5, 10, 10},
		Sub: {-1, -3, -6, -6},
		Mul: {12, 4, 16, 16},
		Div: {0.75, 0.25, 0.25, 0.25},
		Dot: {-1, -1, -1, -1},
	} {
		o := []float64{-1, -1, -1, -1}
		Gather(op, o, x, xo, y, yo)
		for k := range o {
			if o[k] != want[k] {
				t.Errorf("%v: o = %v, want %v", op, o, want)
				break
			}
		}
	}
}
