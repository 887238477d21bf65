package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// operand describes one input of an op under test.
type operand struct {
	at    ops.Target
	shape []int // feature shape
}

// builder adds the op under test to an expression graph.
type builder func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error)

// testGraphs returns the fixtures every op is checked on: a homogeneous graph
// with a self-loop, parallel edges, skewed degrees and a node without
// in-edges, and a bipartite graph with more sources than destinations.
func testGraphs(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	homo := mustGraph(t, 7, 7,
		[]int32{0, 1, 2, 3, 4, 5, 0, 0, 1, 3, 3, 2, 5, 4},
		[]int32{1, 1, 1, 1, 1, 0, 2, 2, 3, 3, 4, 5, 4, 0})
	bip := mustGraph(t, 5, 4,
		[]int32{0, 1, 2, 3, 4, 0, 4, 2},
		[]int32{0, 0, 1, 1, 2, 2, 0, 1})
	return map[string]*graph.Graph{"homo": homo, "bipartite": bip}
}

func mustGraph(t *testing.T, ns, nd int, src, dst []int32) *graph.Graph {
	t.Helper()
	g, err := graph.FromCOO(ns, nd, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func rowsOf(g *graph.Graph, at ops.Target) int {
	switch at {
	case ops.U:
		return g.NumSrc()
	case ops.V:
		return g.NumDst()
	}
	return g.NumEdges()
}

// values draws inputs with magnitudes in [0.5, 1.5] and random signs, away
// from 0 so that Div is smooth, and continuous so that Max/Min have no ties.
func values(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 0.5 + r.Float64()
		if r.IntN(2) == 0 {
			v[i] = -v[i]
		}
	}
	return v
}

func shapeOf(rows int, feat []int) []int { return append([]int{rows}, feat...) }

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
func floats(t *testing.T, v gorgonia.Value) []float64 {
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

// setElem writes x into element i of a node's value.
func setElem(n *gorgonia.Node, i int, x float64) {
	switch d := n.Value().Data().(type) {
	case []float64:
		d[i] = x
	case []float32:
		d[i] = float32(x)
	}
}

// forward builds the op on fresh inputs and returns its output values.
func forward(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, vals [][]float64, build builder) ([]float64, []int) {
	t.Helper()
	eg := gorgonia.NewGraph()
	in := make([]*gorgonia.Node, len(spec))
	for i, s := range spec {
		in[i] = newInput(eg, dt, fmt.Sprintf("in%d", i), shapeOf(rowsOf(g, s.at), s.shape), vals[i])
	}
	out, err := build(g, in)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	return floats(t, out.Value()), out.Shape()
}

// gradCheck compares the gradients gorgonia.Grad builds for every input of
// the op with central finite differences of the cost <R, op(inputs)>, R
// random. In float32 it also compares them with the float64 gradients on the
// same (rounded) inputs.
func gradCheck(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64) {
	t.Helper()
	gradCheckOpt(t, g, dt, spec, build, seed, true)
}

// gradCheckNonsmooth is gradCheck for piecewise-linear ops (max, min): in
// float32 a finite-difference step large enough to be resolved can cross the
// point where the winning edge changes, so float32 gradients are checked
// against the float64 gradients only (which are checked by finite
// differences).
func gradCheckNonsmooth(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64) {
	t.Helper()
	gradCheckOpt(t, g, dt, spec, build, seed, dt == tensor.Float64)
}

func gradCheckOpt(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64, fd bool) {
	t.Helper()
	c := newGradCase(t, g, dt, spec, build, seed)
	defer c.vm.Close()
	analytic := c.gradients(t)
	if dt == tensor.Float32 {
		c64 := newGradCase(t, g, tensor.Float64, spec, build, seed)
		want := c64.gradients(t)
		c64.vm.Close()
		for i := range analytic {
			if j := equalWithin(analytic[i], want[i], 1e-4); j >= 0 {
				t.Errorf("float32 d cost / d in%d[%d] = %.7g, float64 gives %.7g", i, j, analytic[i][j], want[i][j])
				return
			}
		}
	}
	if !fd {
		return
	}
	h, tol := 1e-6, 1e-6
	if dt == tensor.Float32 {
		h, tol = 1e-2, 2e-2
	}
	for i, n := range c.in {
		x := floats(t, n.Value())
		for j := range x {
			setElem(n, j, x[j]+h)
			up := c.run(t)
			setElem(n, j, x[j]-h)
			down := c.run(t)
			setElem(n, j, x[j])
			fd := (up - down) / (2 * h)
			if got := analytic[i][j]; math.Abs(got-fd) > tol*math.Max(1, math.Abs(fd)) {
				t.Errorf("d cost / d in%d[%d] = %.9g, finite difference %.9g", i, j, got, fd)
				return
			}
		}
	}
}

// gradCase is an op under test inside the cost <R, op(inputs)>, with the
// gradients of the cost with respect to every input.
type gradCase struct {
	in, grads []*gorgonia.Node
	cost      *gorgonia.Node
	vm        gorgonia.VM
}

// newGradCase draws the inputs and R from seed (rounded to float32 first, so
// that both dtypes see the same numbers) and builds the cost and gradients.
func newGradCase(t *testing.T, g *graph.Graph, dt tensor.Dtype, spec []operand, build builder, seed uint64) *gradCase {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	draw := func(n int) []float64 {
		v := values(r, n)
		for i := range v {
			v[i] = float64(float32(v[i]))
		}
		return v
	}
	eg := gorgonia.NewGraph()
	c := &gradCase{in: make([]*gorgonia.Node, len(spec))}
	for i, s := range spec {
		shape := shapeOf(rowsOf(g, s.at), s.shape)
		c.in[i] = newInput(eg, dt, fmt.Sprintf("in%d", i), shape, draw(size(shape)))
	}
	out, err := build(g, c.in)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	proj := newInput(eg, dt, "R", out.Shape(), draw(size(out.Shape())))
	prod, err := gorgonia.HadamardProd(out, proj)
	if err != nil {
		t.Fatal(err)
	}
	if c.cost, err = gorgonia.Sum(prod); err != nil {
		t.Fatal(err)
	}
	if c.grads, err = gorgonia.Grad(c.cost, c.in...); err != nil {
		t.Fatalf("Grad: %v", err)
	}
	c.vm = gorgonia.NewTapeMachine(eg)
	return c
}

// run evaluates the cost.
func (c *gradCase) run(t *testing.T) float64 {
	t.Helper()
	c.vm.Reset()
	if err := c.vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	return floats(t, c.cost.Value())[0]
}

// gradients evaluates the analytic gradients.
func (c *gradCase) gradients(t *testing.T) [][]float64 {
	t.Helper()
	c.run(t)
	out := make([][]float64, len(c.in))
	for i := range c.in {
		out[i] = floats(t, c.grads[i].Value())
	}
	return out
}

// equalWithin reports the first index where got and want differ by more than
// tol relative to max(1, |want|), or -1.
func equalWithin(got, want []float64, tol float64) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if math.IsNaN(got[i]) || math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			return i
		}
	}
	return -1
}

var dtypes = []tensor.Dtype{tensor.Float64, tensor.Float32}

// tolerance for forward values against the float64 references.
func tolerance(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 1e-5
	}
	return 1e-12
}
