package layertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Model builds the computation under test on eg in dtype dt and returns its
// output and the nodes to differentiate with respect to (inputs and
// parameters). It must build the same numbers for both dtypes: draw inputs
// with Draw from a fixed seed.
type Model func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (out *gorgonia.Node, wrt gorgonia.Nodes, err error)

// GradConfig configures GradCheck.
type GradConfig struct {
	Seed uint64 // draws the projection R
	// Kinks says the model is only piecewise smooth (ReLU, max
	// aggregation): the float32 gradients are then compared with the
	// float64 ones only, because a finite-difference step that float32 can
	// resolve may cross a kink.
	Kinks bool
}

// GradCheck checks the gradients of the cost <R, out> (R random) that
// gorgonia.Grad builds with respect to every node in wrt, run on a
// TapeMachine:
//
//   - in float64, against central differences with step 1e-6, to 1e-6
//     relative to max(1, |fd|);
//   - in float32, against the float64 gradients on the same numbers (every
//     wrt value is rounded to float32 first), to 1e-3, and unless Kinks,
//     against central differences with step 1e-2, to 2e-2.
//
// A node whose gradient is zero everywhere fails the check: it would prove
// nothing.
func GradCheck(t *testing.T, model Model, c GradConfig) {
	t.Helper()
	c64 := newGradCase(t, model, tensor.Float64, c.Seed)
	defer c64.vm.Close()
	want := c64.gradients(t)
	for i, g := range want {
		if allZero(g) {
			t.Errorf("the gradient with respect to %q is zero everywhere", c64.wrt[i].Name())
		}
	}
	c64.finiteDifferences(t, want, 1e-6, 1e-6)

	c32 := newGradCase(t, model, tensor.Float32, c.Seed)
	defer c32.vm.Close()
	got := c32.gradients(t)
	for i := range got {
		if j := Mismatch(got[i], want[i], 1e-3); j >= 0 {
			t.Errorf("float32 d cost / d %s[%d] = %.7g, float64 gives %.7g", c32.wrt[i].Name(), j, got[i][j], want[i][j])
		}
	}
	if !c.Kinks {
		c32.finiteDifferences(t, got, 1e-2, 2e-2)
	}
}

// gradCase is a model inside the cost <R, out>, with the gradients of the
// cost with respect to wrt.
type gradCase struct {
	wrt, grads gorgonia.Nodes
	cost       *gorgonia.Node
	vm         gorgonia.VM
}

func newGradCase(t *testing.T, model Model, dt tensor.Dtype, seed uint64) *gradCase {
	t.Helper()
	eg := gorgonia.NewGraph()
	out, wrt, err := model(eg, dt)
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
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	proj := Input(eg, dt, "layertest.R", out.Shape(), Draw(r, out.Shape().TotalSize()))
	prod, err := gorgonia.HadamardProd(out, proj)
	if err != nil {
		t.Fatal(err)
	}
	c := &gradCase{wrt: wrt}
	if c.cost, err = gorgonia.Sum(prod); err != nil {
		t.Fatal(err)
	}
	if c.grads, err = gorgonia.Grad(c.cost, wrt...); err != nil {
		t.Fatalf("%v: Grad: %v", dt, err)
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
	return Floats(c.cost.Value())[0]
}

// gradients evaluates the analytic gradients.
func (c *gradCase) gradients(t *testing.T) [][]float64 {
	t.Helper()
	c.run(t)
	out := make([][]float64, len(c.wrt))
	for i, g := range c.grads {
		out[i] = Floats(g.Value())
	}
	return out
}

// finiteDifferences compares analytic with central differences of step h,
// reporting the first mismatch of each node.
func (c *gradCase) finiteDifferences(t *testing.T, analytic [][]float64, h, tol float64) {
	t.Helper()
	for i, n := range c.wrt {
		x := Floats(n.Value())
		for j := range x {
			orig := x[j]
			x[j] = orig + h
			Set(n, x)
			up := c.run(t)
			x[j] = orig - h
			Set(n, x)
			down := c.run(t)
			x[j] = orig
			Set(n, x)
			fd := (up - down) / (2 * h)
			if got := analytic[i][j]; math.IsNaN(got) || math.Abs(got-fd) > tol*math.Max(1, math.Abs(fd)) {
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

// Gradients returns the values of the gradients of <R, out> (R drawn from
// seed) with respect to wrt, run on a TapeMachine over out's whole graph:
// for comparing two ways of computing the same layer.
func Gradients(t *testing.T, out *gorgonia.Node, wrt gorgonia.Nodes, seed uint64) [][]float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	eg := out.Graph()
	proj := Input(eg, out.Dtype(), fmt.Sprintf("layertest.R%d", out.ID()), out.Shape(), Draw(r, out.Shape().TotalSize()))
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
		t.Fatalf("Grad: %v", err)
	}
	return Run(t, grads...)
}
