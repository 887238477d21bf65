package gradcheck

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Steps and tolerances of the finite differences, relative to
// max(1, |fd|).
const (
	float64Step, float64Tol = 1e-6, 1e-6
	float32Step, float32Tol = 1e-2, 2e-2
)

// Func builds the function under test on eg in dtype dt and returns its
// output and the nodes to differentiate with respect to. It must build the
// same numbers for both dtypes: it draws them from r, or from a fixed seed
// of its own. R is drawn from r after Func returns.
type Func func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (out *gorgonia.Node, wrt gorgonia.Nodes, err error)

// Options configures Check.
type Options struct {
	// Seed and Stream seed the PCG generator that Func, then R, draw from.
	Seed, Stream uint64
	// Float32Tol is how far float32 gradients may be from the float64 ones,
	// relative to max(1, |float64 gradient|).
	Float32Tol float64
	// NonSmooth says the function is only piecewise smooth (max, ReLU):
	// float32 gradients are then compared with the float64 ones only.
	NonSmooth bool
}

// Check checks the gradients of sum(out ⊙ R) that gorgonia.Grad builds with
// respect to every node in wrt, in dtype dt (see the package comment). Every
// wrt value is rounded to float32 first, and a node whose gradient is zero
// everywhere fails the check: it would prove nothing.
func Check(t testing.TB, dt tensor.Dtype, f Func, o Options) {
	t.Helper()
	c := newGradCase(t, f, dt, o)
	defer c.vm.Close()
	got := c.gradients(t)
	c.outputIntact(t)
	for i, g := range got {
		if allZero(g) {
			t.Errorf("%v: the gradient with respect to %q is zero everywhere", dt, c.wrt[i].Name())
		}
	}
	switch dt {
	case tensor.Float64:
		c.finiteDifferences(t, got, float64Step, float64Tol)
	case tensor.Float32:
		ref := newGradCase(t, f, tensor.Float64, o)
		want := ref.gradients(t)
		ref.vm.Close()
		for i := range got {
			if j := Mismatch(got[i], want[i], o.Float32Tol); j >= 0 {
				t.Errorf("float32 d cost / d %s[%d] = %.7g, float64 gives %.7g", c.wrt[i].Name(), j, got[i][j], want[i][j])
			}
		}
		if !o.NonSmooth {
			c.finiteDifferences(t, got, float32Step, float32Tol)
		}
	default:
		t.Fatalf("gradcheck: dtype %v", dt)
	}
}

// Gradients returns the values of the gradients of sum(out ⊙ R), R drawn
// from r, with respect to wrt, run on a TapeMachine over out's whole graph:
// for comparing two ways of computing the same thing.
func Gradients(t testing.TB, out *gorgonia.Node, wrt gorgonia.Nodes, r *rand.Rand) [][]float64 {
	t.Helper()
	_, grads := project(t, out, wrt, r)
	return Run(t, grads...)
}

// project builds the cost sum(out ⊙ R), R drawn from r, and its gradients
// with respect to wrt.
func project(t testing.TB, out *gorgonia.Node, wrt gorgonia.Nodes, r *rand.Rand) (cost *gorgonia.Node, grads gorgonia.Nodes) {
	t.Helper()
	name := fmt.Sprintf("gradcheck.R%d", out.ID())
	proj := Input(out.Graph(), out.Dtype(), name, out.Shape(), Draw(r, out.Shape().TotalSize()))
	prod, err := gorgonia.HadamardProd(out, proj)
	if err != nil {
		t.Fatal(err)
	}
	if cost, err = gorgonia.Sum(prod); err != nil {
		t.Fatal(err)
	}
	if grads, err = gorgonia.Grad(cost, wrt...); err != nil {
		t.Fatalf("%v: Grad: %v", out.Dtype(), err)
	}
	return cost, grads
}

// gradCase is a function under test inside the cost, with the gradients of
// the cost with respect to wrt and a machine to run them.
type gradCase struct {
	wrt, grads gorgonia.Nodes
	out, cost  *gorgonia.Node
	vm         gorgonia.VM
}

func newGradCase(t testing.TB, f Func, dt tensor.Dtype, o Options) *gradCase {
	t.Helper()
	r := rand.New(rand.NewPCG(o.Seed, o.Stream))
	eg := gorgonia.NewGraph()
	out, wrt, err := f(eg, dt, r)
	if err != nil {
		t.Fatalf("%v: build: %v", dt, err)
	}
	if out.Dtype() != dt {
		t.Fatalf("%v: output has dtype %v", dt, out.Dtype())
	}
	for _, n := range wrt {
		v := Floats(n.Value())
		for i := range v {
			v[i] = float64(float32(v[i]))
		}
		Set(n, v)
	}
	c := &gradCase{wrt: wrt, out: out}
	c.cost, c.grads = project(t, out, wrt, r)
	c.vm = gorgonia.NewTapeMachine(eg)
	return c
}

// run evaluates the cost.
func (c *gradCase) run(t testing.TB) float64 {
	t.Helper()
	c.vm.Reset()
	if err := c.vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	return Floats(c.cost.Value())[0]
}

// gradients evaluates the analytic gradients.
func (c *gradCase) gradients(t testing.TB) [][]float64 {
	t.Helper()
	c.run(t)
	out := make([][]float64, len(c.grads))
	for i, g := range c.grads {
		out[i] = Floats(g.Value())
	}
	return out
}

// outputIntact checks that the output read after the gradient run equals
// the output of a forward-only run: Gorgonia's TapeMachine lets an op of
// the backward pass that overwrites its input (its own elementwise ops do)
// reuse the buffer of a node whose last reader it is, so an op whose
// backward reads its output that way (gorgonia.Mean's HadamardDiv) leaves
// a wrong value behind for whoever reads it after the run.
func (c *gradCase) outputIntact(t testing.TB) {
	t.Helper()
	after := Floats(c.out.Value())
	vm := gorgonia.NewTapeMachine(c.out.Graph().SubgraphRoots(c.out))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("forward-only run: %v", err)
	}
	if j := Mismatch(after, Floats(c.out.Value()), 1e-12); j >= 0 {
		t.Errorf("%v: output[%d] reads %.9g after the gradient run but %.9g after a forward-only run: the backward pass overwrote it",
			c.out.Dtype(), j, after[j], Floats(c.out.Value())[j])
	}
}

// finiteDifferences compares analytic with central differences of step h,
// reporting the first mismatch of each node.
func (c *gradCase) finiteDifferences(t testing.TB, analytic [][]float64, h, tol float64) {
	t.Helper()
	for i, n := range c.wrt {
		x := Floats(n.Value())
		for j := range x {
			SetElem(n, j, x[j]+h)
			up := c.run(t)
			SetElem(n, j, x[j]-h)
			down := c.run(t)
			SetElem(n, j, x[j])
			fd := (up - down) / (2 * h)
			if got := analytic[i][j]; !Within(got, fd, tol) {
				t.Errorf("%v: d cost / d %s[%d] = %.9g, finite difference %.9g", n.Dtype(), n.Name(), j, got, fd)
				break
			}
		}
	}
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
