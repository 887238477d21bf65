package gat_test

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
)

// TestAttention checks the Attention aggregation on its own: with the
// edges' own IDs as EdgeIDs, attention dropout draws Dropout's masks (as
// a worker's block does with global IDs); on a graph without edges the
// result is zero; and malformed inputs are errors naming the layer.
func TestAttention(t *testing.T) {
	g, err := graph.FromCOO(4, 4, []int32{0, 1, 2, 3, 1, 2}, []int32{1, 2, 3, 0, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := graph.FromCOO(4, 4, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	const h, f = 2, 3
	mode := nn.NewMode()
	mode.Next()
	drop := nn.DropoutSpec{P: 0.5, Seed: 3, Mode: mode}
	ids := make([]int64, g.NumEdges())
	for i := range ids {
		ids[i] = int64(i)
	}
	eg := gorgonia.NewGraph()
	z := gradcheck.Input(eg, tensor.Float64, "z", []int{4, h, f}, []float64{
		0.1, -0.2, 0.3, 0.4, 0.5, -0.6, -0.7, 0.8, 0.9, 1.0, -1.1, 1.2,
		0.3, 0.1, -0.4, 0.2, 0.6, 0.5, -0.2, 0.9, 0.7, -0.8, 0.4, 0.6})
	al := gradcheck.Input(eg, tensor.Float64, "al", []int{1, h, f}, []float64{0.5, -0.3, 0.2, 0.1, 0.4, -0.6})
	ar := gradcheck.Input(eg, tensor.Float64, "ar", []int{1, h, f}, []float64{-0.2, 0.7, 0.3, 0.5, -0.1, 0.2})
	var outs []*gorgonia.Node
	for _, a := range []gat.Attention{{Slope: 0.2, Drop: drop}, {Slope: 0.2, Drop: drop, EdgeIDs: ids}, {Slope: 0.2}} {
		o, err := nn.On(g, a, z, al, ar, nil)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, o)
	}
	zero, err := nn.On(empty, gat.Attention{Slope: 0.2}, z, al, ar, nil)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	a, b := gradcheck.Floats(outs[0].Value()), gradcheck.Floats(outs[1].Value())
	if !slices.Equal(a, b) {
		t.Errorf("dropout by edge IDs %v, plain dropout %v", b, a)
	}
	if slices.Equal(a, gradcheck.Floats(outs[2].Value())) {
		t.Error("attention dropout changed nothing")
	}
	if s := outs[0].Shape(); !s.Eq(tensor.Shape{4, h * f}) {
		t.Errorf("shape %v, want (4, %d)", s, h*f)
	}
	for _, v := range gradcheck.Floats(zero.Value()) {
		if v != 0 {
			t.Fatalf("a graph without edges gave %v", gradcheck.Floats(zero.Value()))
		}
	}

	flat := gradcheck.Input(eg, tensor.Float64, "flat", []int{4, h * f}, make([]float64, 4*h*f))
	for _, c := range []struct {
		in   []*gorgonia.Node
		want string
	}{
		{[]*gorgonia.Node{z, al, ar}, "gat: L: Attention takes (z, al, ar, edge weights or nil), got 3 inputs"},
		{[]*gorgonia.Node{flat, al, ar, nil}, `gat: L: projected features "flat" have shape (4, 6), want (N, heads, features)`},
	} {
		if _, err := nn.On(g, gat.Attention{Name: "L", Slope: 0.2}, c.in...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
