package train

import (
	"fmt"

	"gorgonia.org/tensor"
)

// Rows returns a new (len(ids), F) tensor holding the rows ids of table
// (N x F, float32 or float64): a mini-batch's input features, copied row by
// row without copying the rest of the table. It returns an error naming the
// first id out of range.
func Rows(table *tensor.Dense, ids []int32) (*tensor.Dense, error) {
	x, _, err := rowsInto(table, ids, nil)
	return x, err
}

// rowsInto is Rows writing into buf's memory (a []float32 or []float64 of
// the table's dtype, or nil) when it is large enough, and returns the
// backing slice used, for the next call: a loader gathering every batch's
// rows into one of two recycled buffers allocates (and zeroes) nothing
// once the buffers have grown to the largest batch.
func rowsInto(table *tensor.Dense, ids []int32, buf any) (*tensor.Dense, any, error) {
	if table == nil || table.Dims() != 2 {
		return nil, nil, fmt.Errorf("train: Rows needs an N x F table")
	}
	n, f := table.Shape()[0], table.Shape()[1]
	for i, id := range ids {
		if id < 0 || int(id) >= n {
			return nil, nil, fmt.Errorf("train: row id %d (entry %d) is outside the table's %d rows", id, i, n)
		}
	}
	switch d := table.Data().(type) {
	case []float32:
		b, _ := buf.([]float32)
		out := gather(d, ids, f, b)
		return tensor.New(tensor.WithShape(len(ids), f), tensor.WithBacking(out)), out[:cap(out)], nil
	case []float64:
		b, _ := buf.([]float64)
		out := gather(d, ids, f, b)
		return tensor.New(tensor.WithShape(len(ids), f), tensor.WithBacking(out)), out[:cap(out)], nil
	}
	return nil, nil, fmt.Errorf("train: Rows of a %v table, want float32 or float64", table.Dtype())
}

// gather copies the rows ids of d (rows of f) into buf when it has room,
// into a new slice with an eighth more room otherwise.
func gather[T float32 | float64](d []T, ids []int32, f int, buf []T) []T {
	n := len(ids) * f
	if cap(buf) < n {
		buf = make([]T, n, n+n/8)
	}
	out := buf[:n]
	for i, id := range ids {
		copy(out[i*f:(i+1)*f], d[int(id)*f:])
	}
	return out
}

// Labels returns the labels of the nodes ids, in order: a mini-batch's
// targets. It returns an error naming the first id out of range.
func Labels(labels []int32, ids []int32) ([]int32, error) {
	out := make([]int32, len(ids))
	for i, id := range ids {
		if id < 0 || int(id) >= len(labels) {
			return nil, fmt.Errorf("train: node %d (entry %d) has no label: there are %d", id, i, len(labels))
		}
		out[i] = labels[id]
	}
	return out, nil
}
