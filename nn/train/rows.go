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
	if table == nil || table.Dims() != 2 {
		return nil, fmt.Errorf("train: Rows needs an N x F table")
	}
	n, f := table.Shape()[0], table.Shape()[1]
	for i, id := range ids {
		if id < 0 || int(id) >= n {
			return nil, fmt.Errorf("train: row id %d (entry %d) is outside the table's %d rows", id, i, n)
		}
	}
	switch d := table.Data().(type) {
	case []float32:
		return tensor.New(tensor.WithShape(len(ids), f), tensor.WithBacking(gather(d, ids, f))), nil
	case []float64:
		return tensor.New(tensor.WithShape(len(ids), f), tensor.WithBacking(gather(d, ids, f))), nil
	}
	return nil, fmt.Errorf("train: Rows of a %v table, want float32 or float64", table.Dtype())
}

func gather[T float32 | float64](d []T, ids []int32, f int) []T {
	out := make([]T, len(ids)*f)
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
