package bench

import (
	"fmt"

	"github.com/gnngo/gnn/gpu"
)

// deviceStep opens the device of s, places the task's features (the
// nodes named "features", dense or the values of sparse ones) on it and
// returns the epoch of a Trainer that runs there, and a function closing
// both.
func deviceStep(s *Spec, t *Task) (func() (float64, error), func(), error) {
	var dev *gpu.Device
	var err error
	if s.Device == "gpu" {
		dev, err = gpu.Open(0)
	} else {
		dev, err = gpu.OpenEmulator()
	}
	if err != nil {
		return nil, nil, err
	}
	placed := 0
	for _, n := range t.Loss.Graph().AllNodes() {
		if n.Name() == "features" && n.Value() != nil {
			if err := dev.PlaceNode(n); err != nil {
				dev.Close()
				return nil, nil, err
			}
			placed++
		}
	}
	if placed == 0 {
		dev.Close()
		return nil, nil, fmt.Errorf("bench: no features node to place on the device")
	}
	// The parameters too: Adam steps on the device, only the loss crosses.
	for _, g := range t.Groups {
		for _, p := range g.Params {
			if err := dev.PlaceNode(p); err != nil {
				dev.Close()
				return nil, nil, err
			}
		}
	}
	tr, err := NewTrainer(t)
	if err != nil {
		dev.Close()
		return nil, nil, err
	}
	return tr.Epoch, func() { tr.Close(); dev.Close() }, nil
}
