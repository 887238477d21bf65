package vm_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/vm"
)

// TestWarm checks that New leaves in the pool the buffers a run takes:
// the first run allocates none, and gets the same results as a machine
// whose pool it did not warm.
func TestWarm(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		m := buildModel(t, dt)
		mach, err := vm.New(m.roots)
		if err != nil {
			t.Fatal(err)
		}
		built := mach.Stats().Buffers
		if built == 0 {
			t.Fatalf("%v: New allocated no buffers", dt)
		}
		if err := mach.RunAll(); err != nil {
			t.Fatal(err)
		}
		if got := mach.Stats().Buffers; got != built {
			t.Errorf("%v: the first run allocated %d buffers after New's %d", dt, got-built, built)
		}
		first := make([]gorgonia.Value, len(m.roots))
		for i, r := range m.roots {
			if first[i], err = gorgonia.CloneValue(r.Value()); err != nil {
				t.Fatal(err)
			}
		}
		mach.Close()
		tape := gorgonia.NewTapeMachine(m.loss.Graph().SubgraphRoots(m.roots...))
		if err := tape.RunAll(); err != nil {
			t.Fatal(err)
		}
		for i, r := range m.roots {
			if !equalBits(r.Value(), first[i]) {
				t.Errorf("%v: root %v differs from the tape's", dt, r)
			}
		}
		tape.Close()
	}
}
