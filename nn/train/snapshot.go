package train

import (
	"fmt"

	"gorgonia.org/gorgonia"
)

// weights is a copy of parameters' values, taken at the best epoch and
// written back when training ends.
type weights struct {
	params gorgonia.Nodes
	saved  []any // []float32 or []float64, one per parameter
}

// snapshot allocates a copy of params' values; take fills it.
func snapshot(params gorgonia.Nodes) (*weights, error) {
	w := &weights{params: params, saved: make([]any, len(params))}
	for i, p := range params {
		if p.Value() == nil {
			return nil, fmt.Errorf("train: parameter %q has no value", p.Name())
		}
		switch d := p.Value().Data().(type) {
		case []float32:
			w.saved[i] = make([]float32, len(d))
		case []float64:
			w.saved[i] = make([]float64, len(d))
		default:
			return nil, fmt.Errorf("train: parameter %q holds %T, want float32 or float64 elements", p.Name(), d)
		}
	}
	return w, nil
}

// saved is a copy of parameters' values: weights on the host, or
// deviceWeights for parameters placed on a device.
type saved interface {
	take() error    // copy the parameters' current values
	restore() error // copy them back into the parameters
}

// take copies the parameters' current values into w.
func (w *weights) take() error { w.copy(true); return nil }

// restore copies w back into the parameters' values.
func (w *weights) restore() error { w.copy(false); return nil }

func (w *weights) copy(take bool) {
	for i, p := range w.params {
		switch d := p.Value().Data().(type) {
		case []float32:
			transfer(d, w.saved[i].([]float32), take)
		case []float64:
			transfer(d, w.saved[i].([]float64), take)
		}
	}
}

func transfer[T float32 | float64](live, saved []T, take bool) {
	if take {
		copy(saved, live)
	} else {
		copy(live, saved)
	}
}
