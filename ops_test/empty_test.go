package ops_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// emptyCase is one op applied to a graph without edges: its operands, and
// the result and gradients the math gives there (nil: zeros).
type emptyCase struct {
	name  string
	spec  []operand
	build builder
	// out returns the op's result rows, on the graph, from the number of
	// rows of its first operand's target.
	out ops.Target
	// identity says the result is the first operand (ScaleByDegree with
	// every degree clamped to 1), and so is the gradient: the seed.
	identity bool
}

// emptyCases lists every op of ops: every SpMM operator and reducer, every
// SDDMM operator and target pair, the copies, edge softmax, GAT attention,
// the degree ops.
func emptyCases() []emptyCase {
	var cs []emptyCase
	for _, c := range spmmCases() {
		for _, red := range reducers {
			cs = append(cs, emptyCase{name: fmt.Sprintf("spmm/%s/%v", c.name, red), spec: c.spec(), build: c.build(red), out: ops.V})
		}
	}
	for _, c := range sddmmCases() {
		cs = append(cs, emptyCase{name: "sddmm/" + c.name, spec: c.spec(), build: c.build, out: ops.E})
	}
	for _, norm := range []ops.Norm{ops.ByDst, ops.BySrc} {
		cs = append(cs, emptyCase{name: fmt.Sprintf("edge_softmax/%v", norm), spec: []operand{{ops.E, []int{2, 1}}}, out: ops.E,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.EdgeSoftmax(g, in[0], norm)
			}})
	}
	cs = append(cs,
		emptyCase{name: "gat_attention", spec: []operand{{ops.U, []int{2, 1}}, {ops.V, []int{2, 1}}}, out: ops.E,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.GATAttention(g, in[0], in[1], 0.2)
			}},
		emptyCase{name: "gatv2_scores", spec: []operand{{ops.U, []int{2, 3}}, {ops.V, []int{2, 3}}}, out: ops.E,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				a := gradcheck.Zeros(in[0].Graph(), in[0].Dtype(), "a", 1, 2, 3)
				return ops.GATv2Scores(g, in[0], in[1], a, 0.2)
			}},
		emptyCase{name: "gatv2_edge_scores", spec: []operand{{ops.U, []int{2, 3}}, {ops.V, []int{2, 3}}, {ops.E, []int{4}}}, out: ops.E,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				a := gradcheck.Zeros(in[0].Graph(), in[0].Dtype(), "a", 1, 2, 3)
				we := gradcheck.Zeros(in[0].Graph(), in[0].Dtype(), "we", 4, 6)
				return ops.GATv2EdgeScores(g, in[0], in[1], a, in[2], we, 0.2)
			}},
		emptyCase{name: "normalized_sum", spec: []operand{{ops.U, []int{3}}}, out: ops.V,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.NormalizedSum(g, in[0], -0.5, -0.5)
			}},
		emptyCase{name: "scale_by_degree/in", spec: []operand{{ops.V, []int{3}}}, out: ops.V, identity: true,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.ScaleByDegree(g, in[0], ops.InDegree, -0.5)
			}},
		emptyCase{name: "scale_by_degree/out", spec: []operand{{ops.U, []int{3}}}, out: ops.U, identity: true,
			build: func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
				return ops.ScaleByDegree(g, in[0], ops.OutDegree, -1)
			}},
	)
	return cs
}

// TestEmptyGraphs runs every op on graphs without edges (and without nodes
// on one side or both), forward and backward, in both dtypes. Where the
// result has rows the op must give what the math gives (zeros from every
// reducer, the input where the degrees are clamped to 1) and so must its
// gradients, empty ones included; where the result would be empty it must
// be refused with an error when the graph is built, never panic in the
// TapeMachine.
func TestEmptyGraphs(t *testing.T) {
	t.Parallel()
	graphs := map[string]*graph.Graph{
		"nodes=0":     gradcheck.Graph(t, 0, 0, nil, nil),
		"edges=0":     gradcheck.Graph(t, 3, 3, nil, nil),
		"src=0":       gradcheck.Graph(t, 0, 3, nil, nil),
		"dst=0":       gradcheck.Graph(t, 3, 0, nil, nil),
		"bipartite=0": gradcheck.Graph(t, 2, 3, nil, nil),
	}
	for gname, g := range graphs {
		for _, c := range emptyCases() {
			for _, dt := range gradcheck.Dtypes {
				t.Run(fmt.Sprintf("%s/%s/%v", gname, c.name, dt), func(t *testing.T) {
					checkEmpty(t, g, dt, c)
				})
			}
		}
	}
}

func checkEmpty(t *testing.T, g *graph.Graph, dt tensor.Dtype, c emptyCase) {
	r := rand.New(rand.NewPCG(3, 4))
	eg := gorgonia.NewGraph()
	vals := draw(r, g, c.spec)
	in := inputs(eg, g, dt, c.spec, vals)
	out, err := c.build(g, in)
	rows := gradcheck.Rows(g, c.out)
	if rows == 0 {
		if err == nil || !strings.Contains(err.Error(), "would be empty") {
			t.Fatalf("result with no rows: error %v, want one saying the result would be empty", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	// Seed the backward with R: only the op's own backward runs, as it does
	// inside any cost.
	seed := gradcheck.Input(eg, dt, "R", out.Shape(), gradcheck.Draw(r, out.Shape().TotalSize()))
	grads, err := gorgonia.Backpropagate(gorgonia.Nodes{out}, gorgonia.Nodes{seed}, in)
	if err != nil {
		t.Fatalf("backward: %v", err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := out.Shape()[0]; got != rows {
		t.Errorf("result has %d rows, want %d", got, rows)
	}
	wantOut := make([]float64, out.Shape().TotalSize())
	if c.identity {
		wantOut = vals[0]
	}
	gradcheck.Expect(t, "result", floats(out.Value()), wantOut, tolerance(dt))
	for i, d := range grads {
		if !d.Shape().Eq(in[i].Shape()) {
			t.Errorf("gradient %d has shape %v, want %v", i, d.Shape(), in[i].Shape())
			continue
		}
		want := make([]float64, d.Shape().TotalSize())
		if c.identity {
			want = floats(seed.Value())
		}
		gradcheck.Expect(t, fmt.Sprintf("gradient %d", i), floats(d.Value()), want, tolerance(dt))
	}
}

// floats is gradcheck.Floats that also reads empty values (whose Data
// panics in Gorgonia's tensor package).
func floats(v gorgonia.Value) []float64 {
	if slices.Contains(v.Shape(), 0) {
		return []float64{}
	}
	return gradcheck.Floats(v)
}

// TestEmptyGraphCost differentiates a scalar cost through SpMMs over a graph
// without edges, as training code does: the gradient with respect to the
// node features is zero and the one with respect to the edge weights empty.
func TestEmptyGraphCost(t *testing.T) {
	g := gradcheck.Graph(t, 3, 3, nil, nil)
	for _, op := range []ops.Binary{ops.Add, ops.Sub, ops.Mul, ops.Div} {
		for _, dt := range gradcheck.Dtypes {
			eg := gorgonia.NewGraph()
			x := gradcheck.Input(eg, dt, "x", []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
			w := gradcheck.Zeros(eg, dt, "w", 0, 1)
			z, err := ops.SpMM(g, op, ops.Sum, x, w)
			if err != nil {
				t.Fatalf("%v %v: %v", op, dt, err)
			}
			cost, err := gorgonia.Sum(z)
			if err != nil {
				t.Fatal(err)
			}
			grads, err := gorgonia.Grad(cost, x, w)
			if err != nil {
				t.Fatalf("%v %v: Grad: %v", op, dt, err)
			}
			vm := gorgonia.NewTapeMachine(eg)
			if err := vm.RunAll(); err != nil {
				t.Fatalf("%v %v: run: %v", op, dt, err)
			}
			vm.Close()
			gradcheck.Expect(t, fmt.Sprintf("%v %v: d cost / dx", op, dt), floats(grads[0].Value()), make([]float64, 6), 0)
			if s := grads[1].Shape(); !s.Eq(tensor.Shape{0, 1}) {
				t.Errorf("%v %v: d cost / dw has shape %v, want (0, 1)", op, dt, s)
			}
		}
	}
}

// TestEmptyBatches runs the readouts on a batch of graphs without nodes:
// every sum, mean and maximum over no nodes is zero, and so are the
// gradients (empty for the node features); the softmax over no nodes
// would be empty and is refused.
func TestEmptyBatches(t *testing.T) {
	b, err := graph.Batch([]*graph.Graph{gradcheck.Graph(t, 0, 0, nil, nil), gradcheck.Graph(t, 0, 0, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	readouts := map[string]func(x, w *gorgonia.Node) (*gorgonia.Node, error){
		"sum":      func(x, _ *gorgonia.Node) (*gorgonia.Node, error) { return ops.SumNodes(b, x) },
		"mean":     func(x, _ *gorgonia.Node) (*gorgonia.Node, error) { return ops.MeanNodes(b, x) },
		"max":      func(x, _ *gorgonia.Node) (*gorgonia.Node, error) { return ops.MaxNodes(b, x) },
		"min":      func(x, _ *gorgonia.Node) (*gorgonia.Node, error) { return ops.ReadoutNodes(b, ops.Min, x) },
		"weighted": func(x, w *gorgonia.Node) (*gorgonia.Node, error) { return ops.WeightedSumNodes(b, x, w) },
	}
	for name, readout := range readouts {
		for _, dt := range gradcheck.Dtypes {
			eg := gorgonia.NewGraph()
			x := gradcheck.Zeros(eg, dt, "x", 0, 3)
			w := gradcheck.Zeros(eg, dt, "w", 0, 1)
			out, err := readout(x, w)
			if err != nil {
				t.Fatalf("%s %v: %v", name, dt, err)
			}
			cost, err := gorgonia.Sum(out)
			if err != nil {
				t.Fatal(err)
			}
			grads, err := gorgonia.Grad(cost, x)
			if err != nil {
				t.Fatalf("%s %v: Grad: %v", name, dt, err)
			}
			vm := gorgonia.NewTapeMachine(eg)
			if err := vm.RunAll(); err != nil {
				t.Fatalf("%s %v: run: %v", name, dt, err)
			}
			vm.Close()
			gradcheck.Expect(t, fmt.Sprintf("%s %v", name, dt), floats(out.Value()), make([]float64, 6), 0)
			if s := grads[0].Shape(); !s.Eq(tensor.Shape{0, 3}) {
				t.Errorf("%s %v: gradient of shape %v, want (0, 3)", name, dt, s)
			}
		}
	}
	eg := gorgonia.NewGraph()
	if _, err := ops.SoftmaxNodes(b, gradcheck.Zeros(eg, tensor.Float64, "s", 0, 1)); err == nil || !strings.Contains(err.Error(), "would be empty") {
		t.Errorf("SoftmaxNodes over no nodes: error %v, want one saying the result would be empty", err)
	}
}
