package nn_test

import (
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// fakeSharded is a Sharded graph that records the aggregations it is
// asked for and returns its first input.
type fakeSharded struct {
	*graph.Graph
	got []nn.Aggregation
}

func (f *fakeSharded) Aggregate(a nn.Aggregation, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	f.got = append(f.got, a)
	return in[0], nil
}
func (f *fakeSharded) NodeIDs() []int64 { return nil }
func (f *fakeSharded) EdgeIDs() []int64 { return nil }

// plainGraph is a Graph that is neither a *graph.Graph nor Sharded.
type plainGraph struct{ *graph.Graph }

// TestOn checks the dispatch of nn.On: a Sharded graph gets the
// aggregation value itself (also through NormalizedSum and Aggregate), a
// *graph.Graph its Local, which gives the ops' own results; a nil graph
// and another kind of graph are errors.
func TestOn(t *testing.T) {
	g, err := graph.FromCOO(3, 3, []int32{0, 1, 2, 0}, []int32{1, 2, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	ew := gradcheck.Input(eg, tensor.Float64, "ew", []int{4, 1}, []float64{1, 2, 3, 4})

	s := &fakeSharded{Graph: g}
	if _, err := nn.NormalizedSum(s, x, -0.5, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := nn.Aggregate(s, ops.Max, x, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := nn.On(s, nn.NormSum{Src: -0.5, Dst: -0.5, SrcIn: true}, x, nil); err != nil {
		t.Fatal(err)
	}
	want := []nn.Aggregation{nn.NormSum{Src: -0.5}, nn.Reduction{Red: ops.Max}, nn.NormSum{Src: -0.5, Dst: -0.5, SrcIn: true}}
	if !slices.Equal(s.got, want) {
		t.Errorf("the sharded graph got %v, want %v", s.got, want)
	}

	// On a *graph.Graph: the ops' own results.
	var got, ref gorgonia.Nodes
	build := func(a nn.Aggregation, in []*gorgonia.Node, r func() (*gorgonia.Node, error)) {
		n, err := nn.On(g, a, in...)
		if err != nil {
			t.Fatal(err)
		}
		m, err := r()
		if err != nil {
			t.Fatal(err)
		}
		got, ref = append(got, n), append(ref, m)
	}
	build(nn.NormSum{Src: -0.5, Dst: -1}, []*gorgonia.Node{x, nil}, func() (*gorgonia.Node, error) { return ops.NormalizedSum(g, x, -0.5, -1) })
	build(nn.NormSum{}, []*gorgonia.Node{x, ew}, func() (*gorgonia.Node, error) { return ops.UMulESum(g, x, ew) })
	build(nn.Reduction{Red: ops.Mean}, []*gorgonia.Node{x, ew}, func() (*gorgonia.Node, error) { return ops.SpMM(g, ops.Mul, ops.Mean, x, ew) })
	build(nn.NormSum{Src: -0.5, Dst: -0.5, SrcIn: true}, []*gorgonia.Node{x}, func() (*gorgonia.Node, error) {
		h, err := ops.ScaleByDegree(g, x, ops.InDegree, -0.5)
		if err != nil {
			return nil, err
		}
		return ops.NormalizedSum(g, h, 0, -0.5)
	})
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		a, b := gradcheck.Floats(got[i].Value()), gradcheck.Floats(ref[i].Value())
		if !slices.Equal(a, b) {
			t.Errorf("aggregation %d: %v, the ops give %v", i, a, b)
		}
	}

	for _, c := range []struct {
		g    nn.Graph
		in   []*gorgonia.Node
		want string
	}{
		{nil, []*gorgonia.Node{x}, "nn.NormSum aggregation on a nil graph"},
		{(*graph.Graph)(nil), []*gorgonia.Node{x}, "nn.NormSum aggregation on a nil graph"},
		{plainGraph{g}, []*gorgonia.Node{x}, "needs a *graph.Graph or an nn.Sharded graph, got nn_test.plainGraph"},
		{g, []*gorgonia.Node{x, ew, ew}, "NormSum takes features and optional edge weights, got 3 inputs"},
		{g, []*gorgonia.Node{}, "NormSum takes features and optional edge weights, got 0 inputs"},
	} {
		if _, err := nn.On(c.g, nn.NormSum{}, c.in...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	if _, err := nn.On(g, nn.NormSum{SrcIn: true}, x, ew); err == nil {
		t.Error("in-degree source scaling with edge weights gave no error")
	}

	// InDegrees: of the graph, of a sharded graph's nodes, or an error.
	for _, h := range []nn.Graph{g, s} {
		if d, err := nn.InDegrees(h, "test"); err != nil || !slices.Equal(d, g.InDegrees()) {
			t.Errorf("InDegrees(%T) = %v, %v, want %v", h, d, err, g.InDegrees())
		}
	}
	var none *graph.Graph
	if _, err := nn.InDegrees(none, "the test"); err == nil || !strings.Contains(err.Error(), "the test needs a *graph.Graph") {
		t.Errorf("InDegrees of a nil graph: %v", err)
	}
}
