package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// naiveBatchNorm is the formula, column by column.
func naiveBatchNorm(x, gamma []float64, n, f int, eps float64) []float64 {
	y := make([]float64, n*f)
	for j := range f {
		var m, v float64
		for i := range n {
			m += x[i*f+j]
		}
		m /= float64(n)
		for i := range n {
			v += (x[i*f+j] - m) * (x[i*f+j] - m)
		}
		v /= float64(n)
		for i := range n {
			y[i*f+j] = (x[i*f+j] - m) / math.Sqrt(v+eps) * gamma[j]
		}
	}
	return y
}

// TestBatchNorm checks BatchNorm against the formula and its gradients
// with respect to x and the scale by finite differences, in float64 and
// float32, for several shapes (one row gives zeros).
func TestBatchNorm(t *testing.T) {
	for _, s := range [][2]int{{7, 5}, {300, 3}, {1, 4}} {
		for _, dt := range gradcheck.Dtypes {
			n, f := s[0], s[1]
			t.Run(fmt.Sprintf("%dx%d/%v", n, f, dt), func(t *testing.T) {
				build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
					x := gradcheck.Input(eg, dt, "x", []int{n, f}, gradcheck.Draw(r, n*f))
					g := gradcheck.Input(eg, dt, "gamma", []int{f}, gradcheck.Draw(r, f))
					y, err := BatchNorm(x, g, 1e-5)
					return y, gorgonia.Nodes{x, g}, err
				}
				y, in, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, y)[0]
				want := naiveBatchNorm(gradcheck.Floats(in[0].Value()), gradcheck.Floats(in[1].Value()), n, f, 1e-5)
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				gradcheck.Expect(t, "BatchNorm", got, want, tol)
				if n > 1 {
					gradcheck.Check(t, dt, build, gradcheck.Options{Seed: 3, Stream: uint64(n), Float32Tol: 1e-4})
				}
			})
		}
	}
}

// TestBatchNormDeterministic checks that the output and the gradients have
// the same bits with one goroutine and with several.
func TestBatchNormDeterministic(t *testing.T) {
	const n, f = 5000, 8
	run := func() [][]float64 {
		eg := gorgonia.NewGraph()
		r := rand.New(rand.NewPCG(5, 6))
		x := gradcheck.Input(eg, tensor.Float32, "x", []int{n, f}, gradcheck.Draw(r, n*f))
		g := gradcheck.Input(eg, tensor.Float32, "gamma", []int{f}, gradcheck.Draw(r, f))
		y, err := BatchNorm(x, g, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		grads := gradcheck.Gradients(t, y, gorgonia.Nodes{x, g}, rand.New(rand.NewPCG(7, 8)))
		return append(gradcheck.Run(t, y), grads...)
	}
	prev := runtime.GOMAXPROCS(1)
	one := run()
	runtime.GOMAXPROCS(max(prev, 4))
	many := run()
	runtime.GOMAXPROCS(prev)
	for i := range one {
		gradcheck.Expect(t, fmt.Sprintf("output %d", i), many[i], one[i], 0)
	}
}

func TestBatchNormErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 3), gorgonia.WithName("x"))
	g := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("g"))
	g2 := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(2), gorgonia.WithName("g2"))
	g64 := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("g64"))
	v := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("v"))
	for _, c := range []struct {
		name string
		x, g *gorgonia.Node
		eps  float64
		want string
	}{
		{"nil", nil, g, 1e-5, "nil node"},
		{"eps", x, g, 0, "eps 0 is not positive"},
		{"NaN eps", x, g, math.NaN(), "is not positive"},
		{"rank", v, g, 1e-5, `"v" has shape (3), want (N, F)`},
		{"scale", x, g2, 1e-5, `scale "g2" has shape (2), want (3)`},
		{"dtype", x, g64, 1e-5, "dtypes"},
	} {
		_, err := BatchNorm(c.x, c.g, c.eps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestBatchNormCache runs the forward and backward ops in the orders a
// machine can, with the inputs changing between runs and a backward op
// given an x or dy other than the cached ones, and requires the bits of
// an op that shares nothing.
func TestBatchNormCache(t *testing.T) {
	const n, f = 300, 4
	r := rand.New(rand.NewPCG(9, 10))
	mk := func(size ...int) *tensor.Dense {
		d := make([]float32, tensor.Shape(size).TotalSize())
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		return tensor.New(tensor.WithShape(size...), tensor.WithBacking(d))
	}
	x1, x2, g := mk(n, f), mk(n, f), mk(f)
	dy1, dy2 := mk(n, f), mk(n, f)
	shared := &batchNormOp{n: n, f: f, eps: 1e-5, cache: new(bnCache)}
	do := func(op *batchNormOp, kind int, vals ...gorgonia.Value) []float32 {
		t.Helper()
		var v gorgonia.Value
		var err error
		if kind == bnForward {
			v, err = op.DoInto(nil, vals)
		} else {
			v, err = (&batchNormGradOp{fwd: op, kind: kind}).DoInto(nil, vals)
		}
		if err != nil {
			t.Fatal(err)
		}
		return v.Data().([]float32)
	}
	fresh := func(kind int, vals ...gorgonia.Value) []float32 {
		return do(&batchNormOp{n: n, f: f, eps: 1e-5, cache: new(bnCache)}, kind, vals...)
	}
	same := func(what string, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: element %d is %v, without the cache %v", what, i, got[i], want[i])
			}
		}
	}
	for _, step := range []struct {
		what string
		kind int
		vals []gorgonia.Value
	}{
		{"forward x1", bnForward, []gorgonia.Value{x1, g}},
		{"dx x1 dy1", bnDX, []gorgonia.Value{x1, g, dy1}},
		{"dgamma x1 dy1", bnDGamma, []gorgonia.Value{x1, dy1}},
		{"forward x2", bnForward, []gorgonia.Value{x2, g}},
		{"dgamma x1 dy2 (not the cached x)", bnDGamma, []gorgonia.Value{x1, dy2}},
		{"dx x2 dy1", bnDX, []gorgonia.Value{x2, g, dy1}},
		{"dgamma x2 dy1", bnDGamma, []gorgonia.Value{x2, dy1}},
		{"dgamma x2 dy2 (not the cached dy)", bnDGamma, []gorgonia.Value{x2, dy2}},
		{"forward x1 again", bnForward, []gorgonia.Value{x1, g}},
		{"dx x1 dy2", bnDX, []gorgonia.Value{x1, g, dy2}},
	} {
		same(step.what, do(shared, step.kind, step.vals...), fresh(step.kind, step.vals...))
	}
	// Every backward op but the one given x1 after the forward of x2 took
	// the statistics from the cache; the dgammas after a dx of the same
	// dy took its sums.
	if c := shared.cache; c.statsHits != 6 || c.sumsHits != 2 {
		t.Errorf("%d statistics and %d dy sums from the cache, want 6 and 2", c.statsHits, c.sumsHits)
	}
}
