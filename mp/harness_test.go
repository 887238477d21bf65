package mp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn/vm"
	"github.com/gnngo/gnn/ops"
)

// input is a field of a test case: its name, where it lives, and its
// feature shape.
type input struct {
	name  string
	at    ops.Target
	shape []int
}

// program is a message-passing computation under test: it sets the inputs
// on a fresh frame and returns the node whose value and gradients are
// compared.
type program func(f *Frame) (*gorgonia.Node, error)

// result holds the output of a program, the values of its inputs as the
// program left them, and the gradients of sum(output ⊙ R) with respect to
// every input (nil for one the output does not depend on).
type result struct {
	out   []float64
	shape tensor.Shape
	in    [][]float64
	grads [][]float64
}

// stream is the PCG stream the inputs, then R, are drawn from.
const stream = 11

// setup draws the inputs from r, sets them on a fresh frame over g and runs
// prog on it.
func setup(t testing.TB, eg *gorgonia.ExprGraph, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, r *rand.Rand) (in gorgonia.Nodes, out *gorgonia.Node, err error) {
	t.Helper()
	f, err := NewFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range inputs {
		shape := append([]int{gradcheck.Rows(g, c.at)}, c.shape...)
		x := gradcheck.Input(eg, dt, c.name, shape, gradcheck.Draw(r, tensor.Shape(shape).TotalSize()))
		in = append(in, x)
		d := f.EdgeData()
		switch c.at {
		case ops.U:
			d = f.SrcData()
		case ops.V:
			d = f.DstData()
		}
		if err := d.Set(c.name, x); err != nil {
			t.Fatal(err)
		}
	}
	out, err = prog(f)
	return in, out, err
}

// reached returns the nodes of in that out depends on: gorgonia.Grad
// rejects the others.
func reached(eg *gorgonia.ExprGraph, out *gorgonia.Node, in gorgonia.Nodes) gorgonia.Nodes {
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
	walk(out)
	var wrt gorgonia.Nodes
	for _, x := range in {
		if seen[x] {
			wrt = append(wrt, x)
		}
	}
	return wrt
}

// evaluate runs prog and returns its output and gradients. The output
// comes from a run without gradients: Gorgonia's backward pass may overwrite
// forward values in place (the output of HadamardDiv reads x/y^2 after
// RunAll), so values read after a training step are not reliable.
func evaluate(t testing.TB, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, seed uint64) result {
	t.Helper()
	res := forwardOnly(t, g, dt, inputs, prog, seed)
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(seed, stream))
	in, out, err := setup(t, eg, g, dt, inputs, prog, r)
	if err != nil {
		t.Fatalf("program: %v", err)
	}
	wrt := reached(eg, out, in)
	grads := gradcheck.Gradients(t, out, wrt, r)
	res.grads = make([][]float64, len(in))
	for i, x := range in {
		if j := slices.Index(wrt, x); j >= 0 {
			res.grads[i] = grads[j]
		}
	}
	onMachine(t, g, dt, inputs, prog, seed, append([][]float64{res.out}, grads...))
	return res
}

// onMachine builds prog and its gradients again, as evaluate does, and
// runs them twice on an nn/vm machine, which hands the ops buffers of its
// own (opkit.Into), the same ones on the second run: the output and the
// gradients must be want, the tape's, to the bit.
func onMachine(t testing.TB, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, seed uint64, want [][]float64) {
	t.Helper()
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(seed, stream))
	in, out, err := setup(t, eg, g, dt, inputs, prog, r)
	if err != nil {
		t.Fatalf("program: %v", err)
	}
	wrt := reached(eg, out, in)
	proj := gradcheck.Input(eg, out.Dtype(), "R", out.Shape(), gradcheck.Draw(r, out.Shape().TotalSize()))
	prod, err := gorgonia.HadamardProd(out, proj)
	if err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(cost, wrt...)
	if err != nil {
		t.Fatal(err)
	}
	roots := append(gorgonia.Nodes{out}, grads...)
	m, err := vm.New(roots)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for run := range 2 {
		if err := m.RunAll(); err != nil {
			t.Fatalf("%v: run %d on nn/vm: %v", dt, run, err)
		}
		for i, n := range roots {
			if got := gradcheck.Floats(n.Value()); !slices.Equal(got, want[i]) {
				t.Fatalf("%v: run %d on nn/vm: %v is %v, the tape's %v", dt, run, n, got, want[i])
			}
		}
	}
}

// forwardOnly runs prog without gradients.
func forwardOnly(t testing.TB, g *graph.Graph, dt tensor.Dtype, inputs []input, prog program, seed uint64) result {
	t.Helper()
	in, out, err := setup(t, gorgonia.NewGraph(), g, dt, inputs, prog, rand.New(rand.NewPCG(seed, stream)))
	if err != nil {
		t.Fatalf("program: %v", err)
	}
	vals := gradcheck.Run(t, append(gorgonia.Nodes{out}, in...)...)
	return result{out: vals[0], shape: out.Shape().Clone(), in: vals[1:]}
}

// tol is the relative tolerance between two computations of one result.
func tol(dt tensor.Dtype) float64 {
	if dt == tensor.Float32 {
		return 1e-4
	}
	return 1e-10
}

// compare reports the first difference between the outputs and gradients
// of two results.
func compare(got, want result, tol float64) error {
	if !got.shape.Eq(want.shape) {
		return fmt.Errorf("output shape %v, want %v", got.shape, want.shape)
	}
	if i := gradcheck.Mismatch(got.out, want.out, tol); i >= 0 {
		return fmt.Errorf("output[%d] = %.9g, want %.9g", i, got.out[i], want.out[i])
	}
	if len(got.grads) != len(want.grads) {
		return fmt.Errorf("%d gradients, want %d", len(got.grads), len(want.grads))
	}
	for k := range got.grads {
		if i := gradcheck.Mismatch(got.grads[k], want.grads[k], tol); i >= 0 {
			return fmt.Errorf("gradient of input %d [%d] = %.9g, want %.9g", k, i, got.grads[k][i], want.grads[k][i])
		}
	}
	return nil
}

// gradCheck checks the float64 gradients of prog with respect to the inputs
// its output depends on (see gradcheck.Check).
func gradCheck(t *testing.T, g *graph.Graph, inputs []input, prog program, seed uint64) {
	t.Helper()
	f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		in, out, err := setup(t, eg, g, dt, inputs, prog, r)
		if err != nil {
			return nil, nil, err
		}
		return out, reached(eg, out, in), nil
	}
	gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: seed, Stream: stream})
}
