package gradcheck_test

import (
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.Errorf("%s", fmt.Sprint(args...))
	runtime.Goexit()
}

// check runs gradcheck.Check on a recorder and returns what it reported.
func check(t *testing.T, dt tensor.Dtype, f gradcheck.Func, o gradcheck.Options) []string {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		gradcheck.Check(rec, dt, f, o)
	}()
	<-done
	return rec.msgs
}

// doubleOp is y = 2x whose SymDiff claims dy/dx = slope.
type doubleOp struct{ slope int }

func (op doubleOp) Arity() int { return 1 }
func (op doubleOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}
func (op doubleOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (op doubleOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	x := vals[0].(tensor.Tensor)
	return tensor.Add(x, x)
}
func (op doubleOp) ReturnsPtr() bool      { return false }
func (op doubleOp) CallsExtern() bool     { return false }
func (op doubleOp) OverwritesInput() int  { return -1 }
func (op doubleOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op doubleOp) Hashcode() uint32      { return uint32(op.slope) }
func (op doubleOp) String() string        { return fmt.Sprintf("double%d", op.slope) }
func (op doubleOp) DiffWRT(n int) []bool  { return []bool{true} }
func (op doubleOp) SymDiff(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d := grad
	for range op.slope - 1 {
		var err error
		if d, err = gorgonia.Add(d, grad); err != nil {
			return nil, err
		}
	}
	return gorgonia.Nodes{d}, nil
}

// doubled builds tanh(x) ⊙ y + double(x) with double claiming slope.
func doubled(slope int) gradcheck.Func {
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		x := gradcheck.Input(eg, dt, "x", []int{3, 2}, gradcheck.Draw(r, 6))
		y := gradcheck.Input(eg, dt, "y", []int{3, 2}, gradcheck.Draw(r, 6))
		th, err := gorgonia.Tanh(x)
		if err != nil {
			return nil, nil, err
		}
		p, err := gorgonia.HadamardProd(th, y)
		if err != nil {
			return nil, nil, err
		}
		d, err := gorgonia.ApplyOp(doubleOp{slope}, x)
		if err != nil {
			return nil, nil, err
		}
		out, err := gorgonia.Add(p, d)
		return out, gorgonia.Nodes{x, y}, err
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	o := gradcheck.Options{Seed: 1, Stream: 2, Float32Tol: 1e-4}
	for _, dt := range gradcheck.Dtypes {
		if msgs := check(t, dt, doubled(2), o); len(msgs) > 0 {
			t.Errorf("%v: a right gradient fails: %q", dt, msgs)
		}
		msgs := check(t, dt, doubled(3), o)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "d cost / d x[0]") || !strings.Contains(msgs[0], "finite difference") {
			t.Errorf("%v: a wrong gradient gives %q, want one finite-difference failure for x", dt, msgs)
		}
	}
	// NonSmooth compares float32 with float64 only: a gradient wrong in both
	// dtypes alike is left to the float64 check.
	o.NonSmooth = true
	if msgs := check(t, tensor.Float32, doubled(3), o); len(msgs) != 0 {
		t.Errorf("float32 non-smooth check of a gradient float64 agrees with: %q", msgs)
	}
}

func TestCheckFloat32AgainstFloat64(t *testing.T) {
	t.Parallel()
	// The claimed slope differs between dtypes.
	f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		x := gradcheck.Input(eg, dt, "x", []int{4}, gradcheck.Draw(r, 4))
		slope := 2
		if dt == tensor.Float32 {
			slope = 3
		}
		out, err := gorgonia.ApplyOp(doubleOp{slope}, x)
		return out, gorgonia.Nodes{x}, err
	}
	msgs := check(t, tensor.Float32, f, gradcheck.Options{Seed: 3, Float32Tol: 1e-3, NonSmooth: true})
	if len(msgs) != 1 || !strings.Contains(msgs[0], "float32 d cost / d x[0]") {
		t.Errorf("float32 gradients off from float64 give %q", msgs)
	}
}

func TestCheckZeroGradient(t *testing.T) {
	t.Parallel()
	f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		x := gradcheck.Input(eg, dt, "x", []int{4}, gradcheck.Draw(r, 4))
		out, err := gorgonia.Sub(x, x)
		return out, gorgonia.Nodes{x}, err
	}
	for _, dt := range gradcheck.Dtypes {
		msgs := check(t, dt, f, gradcheck.Options{Float32Tol: 1e-4})
		if len(msgs) != 1 || !strings.Contains(msgs[0], `"x" is zero everywhere`) {
			t.Errorf("%v: a zero gradient gives %q", dt, msgs)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		got, want, tol float64
		within         bool
	}{
		{1, 1, 0, true},
		{1.5, 1, 0.5, true},
		{1.5, 1, 0.4, false},
		{100.5, 100, 0.01, true}, // relative above 1
		{100.5, 100, 0.001, false},
		{inf, inf, 0, true},
		{-inf, inf, 1, false},
		{1, inf, 1, false},
		{inf, 1, 1, false},
		{nan, nan, 1, false},
		{nan, 1, 1, false},
		{1, nan, 1, false},
	} {
		if got := gradcheck.Within(c.got, c.want, c.tol); got != c.within {
			t.Errorf("Within(%v, %v, %v) = %t", c.got, c.want, c.tol, got)
		}
	}
	if i := gradcheck.Mismatch([]float64{1, 2, 3}, []float64{1, 2, 4}, 0.1); i != 2 {
		t.Errorf("Mismatch = %d, want 2", i)
	}
	if i := gradcheck.Mismatch([]float64{1}, []float64{1, 2}, 1); i != 0 {
		t.Errorf("Mismatch of lengths 1 and 2 = %d, want 0", i)
	}
	for _, c := range []struct {
		a, b   []float64
		differ bool
	}{
		{[]float64{1, 2}, []float64{1, 3}, true},
		{[]float64{1, 2}, []float64{1, 2.05}, false},
		{[]float64{1, 2}, []float64{1}, false},
		{[]float64{nan, 2}, []float64{1, 3}, false},
		{[]float64{1, 2}, []float64{inf, 3}, false},
	} {
		if got := gradcheck.Differ(c.a, c.b, 0.1); got != c.differ {
			t.Errorf("Differ(%v, %v) = %t", c.a, c.b, got)
		}
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	v := gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 1000)
	for _, x := range v {
		if a := math.Abs(x); a < 0.5 || a > 1.5 || float64(float32(x)) != x {
			t.Fatalf("Draw gave %v", x)
		}
	}
	for _, dt := range gradcheck.Dtypes {
		eg := gorgonia.NewGraph()
		n := gradcheck.Input(eg, dt, "n", []int{2, 2}, []float64{1, 2, 3, 4})
		if n.Dtype() != dt || !n.Shape().Eq(tensor.Shape{2, 2}) {
			t.Errorf("Input is %v %v", n.Dtype(), n.Shape())
		}
		gradcheck.SetElem(n, 1, -2)
		gradcheck.Set(n, []float64{5})
		gradcheck.Expect(t, dt.String(), gradcheck.Floats(n.Value()), []float64{5, -2, 3, 4}, 0)
		gradcheck.Expect(t, dt.String()+" zeros", gradcheck.Floats(gradcheck.Zeros(eg, dt, "z", 3).Value()), []float64{0, 0, 0}, 0)
	}
}
