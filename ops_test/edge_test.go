package ops_test

import (
	"math"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// TestHashDistinct checks that the same op over two graphs of equal size
// gives two nodes: Gorgonia merges nodes with equal hashes.
func TestHashDistinct(t *testing.T) {
	src, dst := []int32{0, 1, 2}, []int32{1, 2, 0}
	g1 := gradcheck.Graph(t, 3, 3, src, dst)
	g2 := gradcheck.Graph(t, 3, 3, append([]int32{}, dst...), append([]int32{}, src...))
	eg := gorgonia.NewGraph()
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	a, err := ops.CopyUSum(g1, x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ops.CopyUSum(g2, x)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ops.CopyUSum(g1, x)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Errorf("copy_u_sum over two graphs merged into one node")
	}
	if a != c {
		t.Errorf("copy_u_sum twice over one graph gave two nodes")
	}
	if r := g1.Reverse(); r.ID() == g1.ID() {
		t.Errorf("reverse shares the graph's ID")
	}
	m, err := ops.CopyUMax(g1, x)
	if err != nil {
		t.Fatal(err)
	}
	if m == a {
		t.Errorf("max and sum merged")
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	if got, want := gradcheck.Floats(a.Value()), gradcheck.Floats(b.Value()); !gradcheck.Differ(got, want, 0) {
		t.Errorf("different graphs gave equal results %v", got)
	}
}

// TestZeroInDegree checks DGL's conventions for nodes without in-edges: 0 for
// every reducer, no NaN or Inf, in values and gradients.
func TestZeroInDegree(t *testing.T) {
	// Node 2 has no in-edges; the graph with no edges at all has none anywhere.
	for _, g := range []*graph.Graph{
		gradcheck.Graph(t, 3, 3, []int32{0, 1}, []int32{1, 0}),
		gradcheck.Graph(t, 3, 3, nil, nil),
	} {
		for _, red := range reducers {
			for _, dt := range gradcheck.Dtypes {
				eg := gorgonia.NewGraph()
				x := gradcheck.Input(eg, dt, "x", []int{3, 2}, []float64{1, -2, 3, -4, 5, -6})
				z, err := ops.CopyUSum(g, x)
				if red != ops.Sum {
					z, err = ops.SpMM(g, ops.CopyLHS, red, x, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
				cost, err := gorgonia.Sum(z)
				if err != nil {
					t.Fatal(err)
				}
				grads, err := gorgonia.Grad(cost, x)
				if err != nil {
					t.Fatal(err)
				}
				vm := gorgonia.NewTapeMachine(eg)
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				out := gradcheck.Floats(z.Value())
				for k := 4; k < 6; k++ {
					if out[k] != 0 {
						t.Errorf("%v %v edges=%d: isolated node output %v, want 0", red, dt, g.NumEdges(), out[k])
					}
				}
				for _, v := range append(out, gradcheck.Floats(grads[0].Value())...) {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%v %v: non-finite value %v", red, dt, v)
					}
				}
				vm.Close()
			}
		}
	}
}

func TestErrors(t *testing.T) {
	g := gradcheck.Graph(t, 4, 3, []int32{0, 1, 3}, []int32{0, 2, 2})
	empty := gradcheck.Graph(t, 2, 2, nil, nil)
	eg := gorgonia.NewGraph()
	x := gradcheck.Zeros(eg, tensor.Float64, "x", 4, 2)
	xv := gradcheck.Zeros(eg, tensor.Float64, "xv", 3, 2)
	w := gradcheck.Zeros(eg, tensor.Float64, "w", 3, 1)
	w32 := gradcheck.Zeros(eg, tensor.Float32, "w32", 3, 1)
	w3 := gradcheck.Zeros(eg, tensor.Float64, "w3", 3, 3)
	cases := []struct {
		name string
		f    func() (*gorgonia.Node, error)
		want string
	}{
		{"wrong rows", func() (*gorgonia.Node, error) { return ops.CopyUSum(g, xv) }, `"xv" has 3 rows but the graph has 4 source nodes`},
		{"edge rows", func() (*gorgonia.Node, error) { return ops.CopyESum(g, x) }, "4 rows but the graph has 3 edges"},
		{"dtype", func() (*gorgonia.Node, error) { return ops.UMulESum(g, x, w32) }, "differ in dtype"},
		{"broadcast", func() (*gorgonia.Node, error) { return ops.UMulESum(g, x, w3) }, "do not broadcast"},
		{"dot dims", func() (*gorgonia.Node, error) { return ops.UDotE(g, x, w3) }, "last dimensions"},
		{"spmm dot", func() (*gorgonia.Node, error) { return ops.SpMM(g, ops.Dot, ops.Sum, x, w) }, "does not support"},
		{"copy extra", func() (*gorgonia.Node, error) { return ops.SpMM(g, ops.CopyLHS, ops.Sum, x, w) }, "takes no edge operand"},
		{"nil", func() (*gorgonia.Node, error) { return ops.CopyUSum(g, nil) }, "is nil"},
		{"nil graph", func() (*gorgonia.Node, error) { return ops.CopyUSum(nil, x) }, "nil graph"},
		{"no edges", func() (*gorgonia.Node, error) { return ops.UAddV(empty, x, x) }, "no edges"},
		{"softmax no edges", func() (*gorgonia.Node, error) { return ops.EdgeSoftmax(empty, x, ops.ByDst) }, "no edges"},
		{"softmax rows", func() (*gorgonia.Node, error) { return ops.EdgeSoftmax(g, x, ops.ByDst) }, "4 rows but the graph has 3 edges"},
	}
	for _, c := range cases {
		_, err := c.f()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
