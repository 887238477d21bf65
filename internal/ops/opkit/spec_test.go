package opkit

import (
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// double is a toy forward op, 2x, over rows x 2 inputs; its backward is
// doubleGrad. sum is a toy op to a scalar with a gradient only for x.
type (
	double     struct{ rows int }
	doubleGrad struct{ fwd *double }
	sum        struct{ rows int }
)

func (op *double) Name() string { return "double" }
func (op *double) Key() string  { return "rows=" + strconv.Itoa(op.rows) }
func (op *double) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.rows, 2}}, tensor.Shape{op.rows, 2}
}
func (op *double) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	x := vals[0].Data().([]float64)
	y := make([]float64, len(x))
	for i := range x {
		y[i] = 2 * x[i]
	}
	return tensor.New(tensor.WithShape(op.rows, 2), tensor.WithBacking(y)), nil
}
func (op *double) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := Apply("kit", &doubleGrad{op}, grad)
	return gorgonia.Nodes{d}, err
}

func (op *doubleGrad) Name() string                                     { return "d" + op.fwd.Name() }
func (op *doubleGrad) Key() string                                      { return op.fwd.Key() }
func (op *doubleGrad) Shapes() ([]tensor.Shape, tensor.Shape)           { return op.fwd.Shapes() }
func (op *doubleGrad) Do(vals []gorgonia.Value) (gorgonia.Value, error) { return op.fwd.Do(vals) }

func (op *sum) Name() string { return "sum" }
func (op *sum) Key() string  { return "" }
func (op *sum) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.rows, 2}, {op.rows, 2}}, tensor.ScalarShape()
}
func (op *sum) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	var s float64
	for _, v := range vals[0].Data().([]float64) {
		s += v
	}
	return gorgonia.NewF64(s), nil
}
func (op *sum) Grad(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, nil
}
func (op *sum) WRT(n int) []bool { return []bool{true, false} }

// TestSpecOp checks the op New builds from a Spec: arity, type, shape
// checks, hashes that tell name, key and package apart, the differentiable
// inputs, and a backward op that refuses to be differentiated.
func TestSpecOp(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))))
	y, err := Apply("kit", &double{rows: 3}, x)
	if err != nil {
		t.Fatal(err)
	}
	if y2, _ := Apply("kit", &double{rows: 3}, x); y2 != y {
		t.Error("one op applied twice to one input gave two nodes")
	}
	fwd, back, other := New("kit", &double{rows: 3}), New("kit", &doubleGrad{&double{rows: 3}}), New("kat", &double{rows: 3})
	if fwd.Hashcode() == back.Hashcode() || fwd.Hashcode() == other.Hashcode() || fwd.Hashcode() == New("kit", &double{rows: 4}).Hashcode() {
		t.Error("ops of different names, packages or keys share a hash")
	}
	if fwd.Arity() != 1 || fwd.String() != "double" || fwd.Type().String() != "Matrix a → Matrix a" {
		t.Errorf("arity %d, name %q, type %v", fwd.Arity(), fwd, fwd.Type())
	}
	if s := New("kit", &sum{rows: 3}).Type().String(); s != "Matrix a → Matrix a → a" {
		t.Errorf("type of an op to a scalar: %v", s)
	}
	if _, err := fwd.InferShape(tensor.Shape{4, 2}); err == nil || !strings.Contains(err.Error(), "kit: double input 0 has shape (4, 2), want (3, 2)") {
		t.Errorf("shape check: %v", err)
	}
	if _, err := fwd.Do(); err == nil || !strings.Contains(err.Error(), "kit: double takes 1 inputs, got 0") {
		t.Errorf("arity check: %v", err)
	}
	if d := fwd.DiffWRT(1); !d[0] {
		t.Error("a forward op is not differentiable")
	}
	if d := New("kit", &sum{rows: 3}).DiffWRT(2); !d[0] || d[1] {
		t.Errorf("partial op: DiffWRT %v, want [true false]", d)
	}
	if d := back.DiffWRT(1); d[0] {
		t.Error("a backward op is differentiable")
	}
	if _, err := back.SymDiff(gorgonia.Nodes{x}, y, y); err == nil || !strings.Contains(err.Error(), "ddouble is a backward op") {
		t.Errorf("SymDiff of a backward op: %v", err)
	}
	cost, err := gorgonia.Sum(y)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(cost, x)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	for i, v := range grads[0].Value().Data().([]float64) {
		if v != 2 {
			t.Fatalf("gradient element %d is %v, want 2", i, v)
		}
	}
}
