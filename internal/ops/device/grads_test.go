package device

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestHostGrads checks the host side of HostGrads and Placed: host
// parameters are placed nowhere, gradients pair with their parameters by
// index, and a missing gradient or a count mismatch is an error naming it.
func TestHostGrads(t *testing.T) {
	eg := gorgonia.NewGraph()
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("w"), gorgonia.WithInit(gorgonia.Ones()))
	b := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(2), gorgonia.WithName("b"), gorgonia.WithInit(gorgonia.Zeroes()))
	gw := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("gw"), gorgonia.WithInit(gorgonia.ValuesOf(3.0)))
	gb := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(2), gorgonia.WithName("gb"))
	params := gorgonia.Nodes{w, b}
	if on, err := Placed(params); on || err != nil {
		t.Errorf("Placed(host parameters) = %v, %v", on, err)
	}
	if _, err := HostGrads(nil, params, gorgonia.Nodes{gw, gb}); err == nil || !strings.Contains(err.Error(), `"b" has no gradient`) {
		t.Errorf("a missing gradient: %v", err)
	}
	if _, err := HostGrads(nil, params, gorgonia.Nodes{gw}); err == nil || !strings.Contains(err.Error(), "1 gradients for 2 parameters") {
		t.Errorf("a short gradient list: %v", err)
	}
	gorgonia.Let(gb, tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{5, 6})))
	vg, err := HostGrads(nil, params, gorgonia.Nodes{gw, gb})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{3, 5} {
		g, err := vg[i].Grad()
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Data().([]float64)[0]; got != want || vg[i].Value() != params[i].Value() {
			t.Errorf("pair %d: gradient %v, want %v", i, got, want)
		}
	}
}
