// Package values reads and allocates the Gorgonia values gnn's ops work on:
// the element slice of a (possibly view) tensor, fresh output tensors, and
// dispatch on dtype to the float32 or float64 instantiation of an op body.
package values

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
)

// Dense returns v as a tensor whose storage holds its elements in row-major
// order, materialising views.
func Dense(v gorgonia.Value) (tensor.Tensor, error) {
	t, ok := v.(tensor.Tensor)
	if !ok {
		return nil, fmt.Errorf("expected a tensor, got %T", v)
	}
	if w, ok := t.(tensor.View); ok && w.IsView() {
		t = w.Materialize()
	}
	return t, nil
}

// Data returns the elements of v as []T, materialising views. Callers only
// read the slice: it may be v's storage.
func Data[T num.Float](v gorgonia.Value) ([]T, error) {
	t, err := Dense(v)
	if err != nil {
		return nil, err
	}
	if dt := Dtype[T](); t.Dtype() != dt {
		return nil, fmt.Errorf("expected %v data, got %v", dt, t.Dtype())
	}
	if t.Shape().TotalSize() == 0 {
		return []T{}, nil // Data panics on a tensor of no elements
	}
	d, ok := t.Data().([]T)
	if !ok {
		return nil, fmt.Errorf("expected %T data, got %T", d, t.Data())
	}
	return d[:t.Shape().TotalSize()], nil
}

// DataAll returns the elements of every value of vals as []T, as Data
// does for one.
func DataAll[T num.Float](vals []gorgonia.Value) ([][]T, error) {
	out := make([][]T, len(vals))
	if err := DataTo(out, vals); err != nil {
		return nil, err
	}
	return out, nil
}

// DataTo sets out[i] to the elements of vals[i] as []T, as Data does, for
// each i < len(out), and returns the first error. With out an array on the
// stack it allocates nothing: an op's Do names its inputs with it.
func DataTo[T num.Float](out [][]T, vals []gorgonia.Value) error {
	for i := range out {
		x, err := Data[T](vals[i])
		if err != nil {
			return err
		}
		out[i] = x
	}
	return nil
}

// Scalar returns the value of a scalar or a one-element tensor v (a loss,
// a loss gradient), or an error naming what v holds instead. It reads
// host memory: a device value (package internal/ops/device) must not reach it.
func Scalar(v gorgonia.Value) (float64, error) {
	switch d := v.Data().(type) {
	case float32:
		return float64(d), nil
	case float64:
		return d, nil
	case []float32:
		if len(d) == 1 {
			return float64(d[0]), nil
		}
	case []float64:
		if len(d) == 1 {
			return d[0], nil
		}
	}
	return 0, fmt.Errorf("expected a scalar, got %T of shape %v", v.Data(), v.Shape())
}

// Alloc returns a new zeroed tensor of the given shape and T's dtype, and its
// backing slice.
func Alloc[T num.Float](shape []int) (*tensor.Dense, []T) {
	t := tensor.New(tensor.WithShape(shape...), tensor.Of(Dtype[T]()))
	if t.Shape().TotalSize() == 0 {
		return t, []T{} // Data panics on a tensor of no elements
	}
	return t, t.Data().([]T)
}

// Dtype returns the tensor dtype of T.
func Dtype[T num.Float]() tensor.Dtype {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return tensor.Float32
	}
	return tensor.Float64
}

// Dispatch runs f32 or f64 according to the dtype of the first value.
func Dispatch(vals []gorgonia.Value, f32 func() (gorgonia.Value, error), f64 func() (gorgonia.Value, error)) (gorgonia.Value, error) {
	if len(vals) == 0 {
		return nil, fmt.Errorf("no inputs")
	}
	switch dt := vals[0].Dtype(); dt {
	case tensor.Float32:
		return f32()
	case tensor.Float64:
		return f64()
	default:
		return nil, fmt.Errorf("unsupported dtype %v (want float32 or float64)", dt)
	}
}
