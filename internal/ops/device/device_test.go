package device

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestDefaultBuild checks what a build without a backend sees: no
// backend, host values not on the device, host scalars read back, the
// engine's Add on host tensors the standard one.
func TestDefaultBuild(t *testing.T) {
	if Current() != nil {
		t.Fatal("a backend is registered in a test without one")
	}
	h := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 2, 3, 4}))
	if On(h) || Any([]gorgonia.Value{h, gorgonia.NewF32(1)}) {
		t.Error("a host tensor is reported on the device")
	}
	for _, v := range []gorgonia.Value{gorgonia.NewF32(2.5), gorgonia.NewF64(2.5), tensor.New(tensor.WithShape(1), tensor.WithBacking([]float64{2.5}))} {
		if s, err := HostScalar(v); err != nil || s != 2.5 {
			t.Errorf("HostScalar(%v) = %v, %v", v, s, err)
		}
	}
	if _, err := HostScalar(h); err == nil {
		t.Error("HostScalar of a 2x2 tensor succeeded")
	}
	sum, err := Engine{}.Add(h, h)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Data().([]float32); got[3] != 8 {
		t.Errorf("host Add gave %v", got)
	}
	if err := Bind(nil, Engine{}); err == nil || !strings.Contains(err.Error(), "cannot set the engine") {
		t.Errorf("Bind of nil: %v", err)
	}
	eg := gorgonia.NewGraph()
	gorgonia.NewScalar(eg, tensor.Float64, gorgonia.WithName("x"), gorgonia.WithValue(1.0))
	vm := gorgonia.NewTapeMachine(eg)
	if err := Bind(vm, Engine{}); err != nil {
		t.Errorf("Bind of a TapeMachine: %v", err)
	}
}
