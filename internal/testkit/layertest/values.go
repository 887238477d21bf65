package layertest

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Values checks a layer's WithValues option: build adds the layer to a new
// graph, taking its initial values from values, and returns its
// parameters. Built with a values that knows every parameter's name, the
// layer must hold exactly the tensors given (the same memory: nothing is
// drawn or copied); built with one that answers nothing, it must draw the
// same initial values as without values; built with one that answers a
// tensor of another shape or dtype, it must fail with an error naming the
// parameter.
func Values(t *testing.T, build func(eg *gorgonia.ExprGraph, values nn.Values) (gorgonia.Nodes, error)) {
	t.Helper()
	drawn, err := build(gorgonia.NewGraph(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(drawn) == 0 {
		t.Fatal("the layer has no parameters")
	}
	given := map[string]*tensor.Dense{}
	wrong := map[string]*tensor.Dense{}
	for _, p := range drawn {
		v := p.Value().(*tensor.Dense)
		given[p.Name()] = tensor.New(tensor.WithShape(v.Shape().Clone()...), tensor.Of(v.Dtype()))
		wrong[p.Name()] = tensor.New(tensor.WithShape(v.Shape().TotalSize()+1), tensor.Of(v.Dtype()))
	}
	ps, err := build(gorgonia.NewGraph(), func(name string) *tensor.Dense { return given[name] })
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Value() != given[p.Name()] {
			t.Errorf("parameter %q does not hold the tensor values gave", p.Name())
		}
	}
	for _, p := range drawn {
		for what, bad := range map[string]*tensor.Dense{"shape": wrong[p.Name()], "dtype": otherDtype(given[p.Name()])} {
			_, err := build(gorgonia.NewGraph(), func(name string) *tensor.Dense {
				if name == p.Name() {
					return bad
				}
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), p.Name()) {
				t.Errorf("parameter %q given a value of another %s: got error %v, want one naming the parameter", p.Name(), what, err)
			}
		}
	}
	ps, err = build(gorgonia.NewGraph(), func(string) *tensor.Dense { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(drawn) {
		t.Fatalf("%d parameters, %d without values", len(ps), len(drawn))
	}
	for i, p := range ps {
		a, b := p.Value().(*tensor.Dense), drawn[i].Value().(*tensor.Dense)
		if !a.Shape().Eq(b.Shape()) || !sameData(a.Data(), b.Data()) {
			t.Errorf("parameter %q: values that know no parameter changed the drawn initial value", p.Name())
		}
	}
}

// otherDtype returns a zero tensor of v's shape in the other float dtype.
func otherDtype(v *tensor.Dense) *tensor.Dense {
	dt := tensor.Float64
	if v.Dtype() == tensor.Float64 {
		dt = tensor.Float32
	}
	return tensor.New(tensor.WithShape(v.Shape().Clone()...), tensor.Of(dt))
}

func sameData(a, b any) bool {
	switch a := a.(type) {
	case []float32:
		b, ok := b.([]float32)
		return ok && slices.Equal(a, b)
	case []float64:
		b, ok := b.([]float64)
		return ok && slices.Equal(a, b)
	}
	return false
}
