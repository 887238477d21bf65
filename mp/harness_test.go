package mp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// fixtures returns the graphs message passing is checked on: a homogeneous
// graph with a self-loop (1 -> 1), parallel edges (0 -> 2 twice), skewed
// in-degrees (node 1 has five in-edges) and a node without in-edges (6), and
// a bipartite graph with more sources than destinations whose destination 3
// has no in-edges.
func fixtures(t testing.TB) map[string]*graph.Graph {
	t.Helper()
	return map[string]*graph.Graph{
		"homo": mustGraph(t, 7, 7,
			[]int32{0, 1, 2, 3, 4, 5, 0, 0, 1, 3, 3, 2, 5, 4},
			[]int32{1, 1, 1, 1, 1, 0, 2, 2, 3, 3, 4, 5, 4, 0}),
		"bipartite": mustGraph(t, 5, 4,
			[]int32{0, 1, 2, 3, 4, 0, 4, 2},
			[]int32{0, 0, 1, 1, 2, 2, 0, 1}),
	}
}

func mustGraph(t testing.TB, ns, nd int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(ns, nd, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var dtypes = []tensor.Dtype{tensor.Float64, tensor.Float32}

// input is a field of a test case: its name, where it lives, and its
// feature shape.
type input struct {
	name  string
	at    ops.Target
	shape []int
}

func rowsAt(g *graph.Graph, at ops.Target) int {
	switch at {
	case ops.U:
		return g.NumSrc()
	case ops.V:
		return g.NumDst()
	}
	return g.NumEdges()
}

// draw returns n values with magnitudes in [0.5, 1.5] and random signs:
// away from 0, so that Div is smooth, and continuous, so that Max and Min
// have no ties except between equal operands. They are rounded to float32
// so that both dtypes see the same numbers.
func draw(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(float32(0.5 + r.Float64()))
		if r.IntN(2) == 0 {
			v[i] = -v[i]
		}
	}
	return v
}

func size(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// newInput makes an input node holding vals in dtype dt.
func newInput(eg *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape []int, vals []float64) *gorgonia.Node {
	var backing any
	if dt == tensor.Float32 {
		f := make([]float32, len(vals))
		for i, x := range vals {
			f[i] = float32(x)
		}
		backing = f
	} else {
		backing = append([]float64{}, vals...)
	}
	v := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(backing))
	return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(v))
}

// floats returns a copy of a value's elements as float64.
func floats(t testing.TB, v gorgonia.Value) []float64 {
	t.Helper()
	switch d := v.Data().(type) {
	case []float64:
		return append([]float64{}, d[:v.Size()]...)
	case []float32:
		out := make([]float64, v.Size())
		for i := range out {
			out[i] = float64(d[i])
		}
		return out
	case float64:
		return []float64{d}
	case float32:
		return []float64{float64(d)}
	}
	t.Fatalf("unexpected value data %T", v.Data())
	return nil
}

func setElem(n *gorgonia.Node, i int, x float64) {
	switch d := n.Value().Data().(type) {
	case []float64:
		d[i] = x
	case []float32:
		d[i] = float32(x)
	}
}

// program is a message-passing computation under test: it sets the inputs
// on a fresh frame and returns the node whose value and gradients are
// compared.
type program func(f *Frame) (*gorgonia.Node, error)

// result holds the output of a program and the gradients of <R, output>
// with respect to every input.
type result struct {
	out   []float64
	shape tensor.Shape
	grads [][]float64
}

// session is a built program: inputs, cost and gradients in one expression
// graph, with a tape machine to run it.
type session struct {
	in    []*gorgonia.Node
	out   *gorgonia.Node
	cost  *gorgonia.Node
	grads gorgonia.Nodes
	vm    gorgonia.VM
}

// build draws the inputs from seed, runs prog on a frame over g holding
// them, and builds the cost <R, output> and its gradients. bipartite forces
// a bipartite frame.
func build(t testing.TB, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, seed uint64, grads bool) *session {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 11))
	eg := gorgonia.NewGraph()
	f, err := NewFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{}
	for _, in := range inputs {
		shape := append([]int{rowsAt(g, in.at)}, in.shape...)
		x := newInput(eg, dt, in.name, shape, draw(r, size(shape)))
		s.in = append(s.in, x)
		var d *Data
		switch in.at {
		case ops.U:
			d = f.SrcData()
		case ops.V:
			d = f.DstData()
		default:
			d = f.EdgeData()
		}
		if err := d.Set(in.name, x); err != nil {
			t.Fatal(err)
		}
	}
	if s.out, err = prog(f); err != nil {
		t.Fatalf("program: %v", err)
	}
	proj := newInput(eg, dt, "R", s.out.Shape(), draw(r, s.out.Shape().TotalSize()))
	p, err := gorgonia.HadamardProd(proj, s.out)
	if err != nil {
		t.Fatal(err)
	}
	if s.cost, err = gorgonia.Sum(p); err != nil {
		t.Fatal(err)
	}
	if grads {
		// Gradients with respect to the inputs the output depends on;
		// Grad rejects the others.
		seen := map[*gorgonia.Node]bool{}
		var walk func(n *gorgonia.Node)
		walk = func(n *gorgonia.Node) {
			if !seen[n] {
				seen[n] = true
				for it := eg.From(n.ID()); it.Next(); {
					walk(it.Node().(*gorgonia.Node))
				}
			}
		}
		walk(s.out)
		var wrt gorgonia.Nodes
		for _, x := range s.in {
			if seen[x] {
				wrt = append(wrt, x)
			}
		}
		g, err := gorgonia.Grad(s.cost, wrt...)
		if err != nil {
			t.Fatalf("Grad: %v", err)
		}
		s.grads = make(gorgonia.Nodes, len(s.in))
		for i, x := range s.in {
			if j := slices.Index(wrt, x); j >= 0 {
				s.grads[i] = g[j]
			}
		}
	}
	s.vm = gorgonia.NewTapeMachine(eg)
	return s
}

func (s *session) run(t testing.TB) float64 {
	t.Helper()
	s.vm.Reset()
	if err := s.vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	return floats(t, s.cost.Value())[0]
}

func (s *session) result(t testing.TB) result {
	t.Helper()
	s.run(t)
	res := result{out: floats(t, s.out.Value()), shape: s.out.Shape().Clone()}
	for _, g := range s.grads {
		if g == nil {
			res.grads = append(res.grads, nil)
			continue
		}
		res.grads = append(res.grads, floats(t, g.Value()))
	}
	return res
}

// evaluate runs prog and returns its output and gradients. The output
// comes from a run without gradients: Gorgonia's backward pass may overwrite
// forward values in place (the output of HadamardDiv reads x/y^2 after
// RunAll), so values read after a training step are not reliable.
func evaluate(t testing.TB, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, seed uint64) result {
	t.Helper()
	res := forwardOnly(t, g, dt, inputs, prog, seed)
	s := build(t, g, dt, inputs, prog, seed, true)
	defer s.vm.Close()
	res.grads = s.result(t).grads
	return res
}

// forwardOnly runs prog without gradients.
func forwardOnly(t testing.TB, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, seed uint64) result {
	t.Helper()
	s := build(t, g, dt, inputs, prog, seed, false)
	defer s.vm.Close()
	return s.result(t)
}

// tol is the relative tolerance between two computations of one result.
func tol(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 1e-4
	}
	return 1e-10
}

// compare reports the first difference between two results.
func compare(got, want result, tol float64) error {
	if !got.shape.Eq(want.shape) {
		return fmt.Errorf("output shape %v, want %v", got.shape, want.shape)
	}
	if i := firstDiff(got.out, want.out, tol); i >= 0 {
		return fmt.Errorf("output[%d] = %.9g, want %.9g", i, got.out[i], want.out[i])
	}
	if len(got.grads) != len(want.grads) {
		return fmt.Errorf("%d gradients, want %d", len(got.grads), len(want.grads))
	}
	for k := range got.grads {
		if i := firstDiff(got.grads[k], want.grads[k], tol); i >= 0 {
			return fmt.Errorf("gradient of input %d [%d] = %.9g, want %.9g", k, i, got.grads[k][i], want.grads[k][i])
		}
	}
	return nil
}

// firstDiff returns the first index where got and want differ by more than
// tol relative to max(1, |want|), or -1.
func firstDiff(got, want []float64, tol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if math.IsNaN(got[i]) != math.IsNaN(want[i]) ||
			math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			return i
		}
	}
	return -1
}

// gradCheck compares the gradients of prog (float64) with central finite
// differences of the cost.
func gradCheck(t *testing.T, g *graph.Graph, inputs []input, prog program, seed uint64) {
	t.Helper()
	s := build(t, g, tensor.Float64, inputs, prog, seed, true)
	defer s.vm.Close()
	analytic := s.result(t).grads
	const h, tol = 1e-6, 1e-6
	for i, n := range s.in {
		if s.grads[i] == nil {
			continue
		}
		x := floats(t, n.Value())
		for j := range x {
			setElem(n, j, x[j]+h)
			up := s.run(t)
			setElem(n, j, x[j]-h)
			down := s.run(t)
			setElem(n, j, x[j])
			fd := (up - down) / (2 * h)
			if got := analytic[i][j]; math.Abs(got-fd) > tol*math.Max(1, math.Abs(fd)) {
				t.Errorf("d cost / d %s[%d] = %.9g, finite difference %.9g", inputs[i].name, j, got, fd)
				return
			}
		}
	}
}
