package values

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestScalar checks that scalars and one-element tensors of both float
// types read back, and that anything else is an error naming its shape.
func TestScalar(t *testing.T) {
	for _, v := range []gorgonia.Value{gorgonia.NewF32(2.5), gorgonia.NewF64(2.5),
		tensor.New(tensor.WithShape(1), tensor.WithBacking([]float32{2.5})),
		tensor.New(tensor.WithShape(1, 1), tensor.WithBacking([]float64{2.5}))} {
		if s, err := Scalar(v); err != nil || s != 2.5 {
			t.Errorf("Scalar(%v) = %v, %v", v, s, err)
		}
	}
	v := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{1, 2}))
	if _, err := Scalar(v); err == nil || !strings.Contains(err.Error(), "expected a scalar, got []float64 of shape (2)") {
		t.Errorf("Scalar of two elements: %v", err)
	}
}
