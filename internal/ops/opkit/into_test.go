package opkit

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// noDo describes double's shapes but has no way to compute; intoDouble
// is double with DoInto alone.
type (
	noDo       struct{ rows int }
	intoDouble struct{ noDo }
)

func (op *intoDouble) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	if dst == nil {
		dst = tensor.New(tensor.WithShape(op.rows, 2), tensor.Of(tensor.Float64))
	}
	y := dst.Data().([]float64)
	for i, v := range vals[0].Data().([]float64) {
		y[i] = 2 * v
	}
	return dst, nil
}

func (op *noDo) Name() string { return "nodo" }
func (op *noDo) Key() string  { return "" }
func (op *noDo) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.rows, 2}}, tensor.Shape{op.rows, 2}
}

// TestIntoWithoutDo: the Op of an Into without Do computes into a fresh
// value, and into a given one; Apply refuses a Spec with neither method.
func TestIntoWithoutDo(t *testing.T) {
	op := New("kit", &intoDouble{noDo{rows: 2}})
	x := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float64{1, 2, 3, 4}))
	got, err := op.Do(x)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Data().([]float64); d[0] != 2 || d[3] != 8 {
		t.Errorf("Do of an Into gave %v, want [2 4 6 8]", d)
	}
	dst := tensor.New(tensor.WithShape(2, 2), tensor.Of(tensor.Float64))
	if got, err := op.DoInto(dst, x); err != nil || got != gorgonia.Value(dst) {
		t.Errorf("DoInto: %v, into the buffer %v", err, got == gorgonia.Value(dst))
	}
	g := gorgonia.NewGraph()
	n := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("x"))
	if _, err := Apply("kit", &noDo{rows: 2}, n); err == nil || !strings.Contains(err.Error(), "kit: nodo has neither Do nor DoInto") {
		t.Errorf("Apply of a Spec without Do or DoInto: %v", err)
	}
	if _, err := New("kit", &noDo{rows: 2}).Do(x); err == nil || !strings.Contains(err.Error(), "neither Do nor DoInto") {
		t.Errorf("Do of a Spec without Do or DoInto: %v", err)
	}
}
