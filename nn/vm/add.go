package vm

import (
	"reflect"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/parallel"
)

// isAdd reports whether op is Gorgonia's element-wise addition (its
// elemBinOp of "+"), which the machine runs with addInto when both
// inputs are dense tensors of the output's dtype and size. Gorgonia's own
// kernel runs on one goroutine, element by element: in a GIN epoch the
// sums of a layer's input and its neighbours' and of the gradients that
// meet at a node cost about as much as the batch norms.
func isAdd(op gorgonia.Op) bool {
	return reflect.TypeOf(op).String() == "gorgonia.elemBinOp" && op.String() == "+ false"
}

// addInto sets dst to a + b, element by element, when a and b are dense
// float32 or float64 tensors of dst's dtype and size, and reports whether
// it did: the bits of Gorgonia's addition, on several goroutines.
func addInto(dst *tensor.Dense, args []gorgonia.Value) bool {
	if len(args) != 2 {
		return false
	}
	a, ok1 := args[0].(*tensor.Dense)
	b, ok2 := args[1].(*tensor.Dense)
	if !ok1 || !ok2 || a.IsView() || b.IsView() || dst.IsView() {
		return false
	}
	n := dst.Shape().TotalSize()
	if a.Shape().TotalSize() != n || b.Shape().TotalSize() != n || a.Dtype() != dst.Dtype() || b.Dtype() != dst.Dtype() {
		return false
	}
	switch c := dst.Data().(type) {
	case []float32:
		addSlices(c[:n], a.Data().([]float32)[:n], b.Data().([]float32)[:n])
	case []float64:
		addSlices(c[:n], a.Data().([]float64)[:n], b.Data().([]float64)[:n])
	default:
		return false
	}
	return true
}

// addSlices sets c = a + b on several goroutines.
func addSlices[T float32 | float64](c, a, b []T) {
	parallel.For(len(c), 1<<14, func(lo, hi int) {
		c, a, b := c[lo:hi], a[lo:hi], b[lo:hi]
		done := 0
		if cf, ok := any(c).([]float32); ok && useAddAVX2 && len(c) >= 8 {
			done = len(c) &^ 7
			addF32(&cf[0], &any(a).([]float32)[0], &any(b).([]float32)[0], done)
		}
		for i := done; i < len(c); i++ {
			c[i] = a[i] + b[i]
		}
	})
}
