package sage_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layertest"
	"github.com/gnngo/gnn/nn/sage"
)

var aggregators = []sage.Aggregator{sage.Mean, sage.GCN, sage.Pool}

// split names a layer's learnables by role (see Learnables).
func split(t testing.TB, agg sage.Aggregator, bias bool, vals [][]float64) params {
	t.Helper()
	want := 1 + btoi(agg != sage.GCN) + 2*btoi(agg == sage.Pool) + btoi(bias)
	if len(vals) != want {
		t.Fatalf("%v: %d learnables, want %d", agg, len(vals), want)
	}
	var p params
	if agg == sage.Pool {
		p.pool, p.poolBias, vals = vals[0], vals[1], vals[2:]
	}
	if agg != sage.GCN {
		p.self, vals = vals[0], vals[1:]
	}
	p.neigh = vals[0]
	if bias {
		p.b = vals[1]
	}
	return p
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGolden compares the layer with the edge-by-edge reference for every
// aggregator, with and without edge weights, on a homogeneous graph with a
// node without in-edges and on a block, for in > out (W_neigh applied before
// the aggregation) and in < out.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, dt := range layertest.Dtypes {
		for _, f := range fixtures {
			for _, agg := range aggregators {
				for _, weighted := range []bool{false, true} {
					for _, d := range [][2]int{{4, 2}, {2, 3}} {
						name := fmt.Sprintf("%v/%s/%v/weighted=%t/in=%d/out=%d", dt, f.name, agg, weighted, d[0], d[1])
						t.Run(name, func(t *testing.T) {
							golden(t, dt, f, agg, weighted, true, d[0], d[1], nil, nil)
						})
					}
				}
			}
		}
	}
}

// TestGoldenOptions covers a layer without bias and one with an activation.
func TestGoldenOptions(t *testing.T) {
	t.Parallel()
	for _, dt := range layertest.Dtypes {
		for _, agg := range aggregators {
			t.Run(fmt.Sprintf("%v/%v/no-bias", dt, agg), func(t *testing.T) {
				golden(t, dt, fixtures[0], agg, false, false, 3, 2, nil, nil)
			})
			t.Run(fmt.Sprintf("%v/%v/tanh", dt, agg), func(t *testing.T) {
				golden(t, dt, fixtures[1], agg, true, true, 3, 2, gorgonia.Tanh, math.Tanh)
			})
		}
	}
}

func golden(t *testing.T, dt tensor.Dtype, f fixture, agg sage.Aggregator, weighted, bias bool, in, out int, act sage.Activation, ref func(float64) float64) {
	r := rand.New(rand.NewPCG(uint64(in*10+out), uint64(agg)))
	eg := gorgonia.NewGraph()
	l, err := sage.New(eg, in, out, sage.WithAggregator(agg), sage.WithBias(bias), sage.WithActivation(act), sage.WithDtype(dt))
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Learnables()
	layertest.Randomize(r, 0.5, ps...)
	x := layertest.Draw(r, f.ns*in)
	xn := layertest.Input(eg, dt, "x", []int{f.ns, in}, x)
	var ew []float64
	var y *gorgonia.Node
	if weighted {
		ew = layertest.Draw(r, len(f.src))
		shape := []int{len(ew)} // a vector on one dtype, a column on the other
		if dt == tensor.Float32 {
			shape = append(shape, 1)
		}
		y, err = l.ForwardWeighted(f.graph(t), xn, layertest.Input(eg, dt, "ew", shape, ew))
	} else {
		y, err = l.Forward(f.graph(t), xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); !s.Eq(tensor.Shape{f.nd, out}) {
		t.Fatalf("output shape %v, want (%d, %d)", s, f.nd, out)
	}
	got := layertest.Run(t, append(gorgonia.Nodes{y}, ps...)...)
	want := reference(f, agg, x, split(t, agg, bias, got[1:]), ew, in, out, ref)
	layertest.Expect(t, "output", got[0], want, layertest.Tol(dt))
}

// TestGradients checks the gradients of the whole layer with respect to the
// features, the edge weights and every parameter, for every aggregator.
// Pool has ReLU and max kinks, so its float32 gradients are compared with
// float64 ones (see layertest.GradCheck).
func TestGradients(t *testing.T) {
	t.Parallel()
	cases := []struct {
		f        fixture
		weighted bool
		in, out  int
	}{
		{fixtures[0], false, 4, 2},
		{fixtures[0], true, 2, 3},
		{fixtures[1], true, 4, 2},
		{fixtures[1], false, 2, 3},
	}
	for _, agg := range aggregators {
		for _, c := range cases {
			name := fmt.Sprintf("%v/%s/weighted=%t/in=%d/out=%d", agg, c.f.name, c.weighted, c.in, c.out)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				model := gradModel(c.f, c.weighted, c.in, c.out, sage.WithAggregator(agg))
				layertest.GradCheck(t, model, layertest.GradConfig{Seed: 3, Kinks: agg == sage.Pool})
			})
		}
	}
	t.Run("dropout-training", func(t *testing.T) {
		t.Parallel()
		mode := nn.NewMode()
		mode.Next()
		model := gradModel(fixtures[0], true, 3, 2, sage.WithFeatDropout(0.4), sage.WithMode(mode), sage.WithActivation(nn.ELU))
		layertest.GradCheck(t, model, layertest.GradConfig{Seed: 3})
	})
}

func gradModel(f fixture, weighted bool, in, out int, opts ...sage.Option) layertest.Model {
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(6, 6))
		g, err := graph.FromCOO(f.ns, f.nd, f.src, f.dst)
		if err != nil {
			return nil, nil, err
		}
		l, err := sage.New(eg, in, out, append(opts, sage.WithDtype(dt), sage.WithSeed(7))...)
		if err != nil {
			return nil, nil, err
		}
		layertest.Randomize(r, 0.5, l.Learnables()...)
		x := layertest.Input(eg, dt, "x", []int{f.ns, in}, layertest.Draw(r, f.ns*in))
		wrt := append(gorgonia.Nodes{x}, l.Learnables()...)
		if !weighted {
			y, err := l.Forward(g, x)
			return y, wrt, err
		}
		ew := layertest.Input(eg, dt, "ew", []int{len(f.src), 1}, layertest.Draw(r, len(f.src)))
		y, err := l.ForwardWeighted(g, x, ew)
		return y, append(wrt, ew), err
	}
}

// TestDropoutModes checks that dropout is the identity in evaluation and
// changes the output in training.
func TestDropoutModes(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	plain, err := sage.New(eg, 3, 2, sage.WithName("plain"), sage.WithSeed(7), sage.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := sage.New(eg, 3, 2, sage.WithName("dropped"), sage.WithSeed(7), sage.WithDtype(tensor.Float64), sage.WithFeatDropout(0.5), sage.WithMode(mode))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.Input(eg, tensor.Float64, "x", []int{f.ns, 3}, layertest.Draw(rand.New(rand.NewPCG(1, 2)), f.ns*3))
	y0, err := plain.Forward(f.graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	y1, err := dropped.Forward(f.graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	mode.Eval()
	got := layertest.Run(t, y0, y1)
	layertest.Expect(t, "evaluation", got[1], got[0], 1e-12)
	mode.Train()
	mode.Next()
	got = layertest.Run(t, y0, y1)
	if layertest.Mismatch(got[1], got[0], 1e-6) < 0 {
		t.Error("dropout in training left the output unchanged")
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	cases := []struct {
		name    string
		eg      *gorgonia.ExprGraph
		in, out int
		opts    []sage.Option
		want    string
	}{
		{"nil-graph", nil, 2, 2, nil, "nil expression graph"},
		{"zero-in", eg, 0, 2, nil, "must be positive"},
		{"negative-out", eg, 2, -3, nil, "must be positive"},
		{"aggregator", eg, 2, 2, []sage.Option{sage.WithAggregator(sage.Aggregator(9))}, "unknown aggregator"},
		{"dropout", eg, 2, 2, []sage.Option{sage.WithFeatDropout(1)}, "feature dropout"},
		{"nan-dropout", eg, 2, 2, []sage.Option{sage.WithFeatDropout(math.NaN())}, "feature dropout"},
		{"dropout-without-mode", eg, 2, 2, []sage.Option{sage.WithFeatDropout(0.5)}, "WithMode"},
		{"dtype", eg, 2, 2, []sage.Option{sage.WithDtype(tensor.Int)}, "dtype"},
		{"name", eg, 2, 2, []sage.Option{sage.WithName("")}, "empty name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := sage.New(c.eg, c.in, c.out, c.opts...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want an error containing %q", l, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "sage: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	g := f.graph(t)
	eg := gorgonia.NewGraph()
	l, err := sage.New(eg, 3, 2, sage.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	input := func(dt tensor.Dtype, name string, shape ...int) *gorgonia.Node {
		return layertest.Input(eg, dt, name, shape, make([]float64, tensor.Shape(shape).TotalSize()))
	}
	x := input(tensor.Float32, "x", 5, 3)
	cases := []struct {
		name string
		run  func() (*gorgonia.Node, error)
		want string
	}{
		{"nil-graph", func() (*gorgonia.Node, error) { return l.Forward(nil, x) }, "needs a graph"},
		{"nil-features", func() (*gorgonia.Node, error) { return l.Forward(g, nil) }, "needs a graph"},
		{"more-destinations", func() (*gorgonia.Node, error) {
			return l.Forward(layertest.Graph(t, 5, 6, []int32{0}, []int32{5}), x)
		}, "6 destination nodes but 5 sources"},
		{"columns", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "x4", 5, 4)) }, "want (5, 3)"},
		{"rows", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "x6", 6, 3)) }, "want (5, 3)"},
		{"dtype", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float64, "x64", 5, 3)) }, "dtype"},
		{"nil-weight", func() (*gorgonia.Node, error) { return l.ForwardWeighted(g, x, nil) }, "nil edge weight"},
		{"weight-rows", func() (*gorgonia.Node, error) {
			return l.ForwardWeighted(g, x, input(tensor.Float32, "ew", 3, 1))
		}, "sage: layer: ops:"},
		{"weight-dtype", func() (*gorgonia.Node, error) {
			return l.ForwardWeighted(g, x, input(tensor.Float64, "ew64", len(f.src), 1))
		}, "dtype"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y, err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Forward = %v, %v; want an error containing %q", y, err, c.want)
			}
		})
	}
}

// TestUniqueNames builds two unnamed layers of the same shape and seed in one
// graph: their parameters must not merge.
func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := sage.New(eg, 3, 2, sage.WithAggregator(sage.Pool))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sage.New(eg, 3, 2, sage.WithAggregator(sage.Pool))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range append(a.Learnables(), b.Learnables()...) {
		if seen[p.Name()] {
			t.Errorf("parameter name %q used twice", p.Name())
		}
		seen[p.Name()] = true
	}
	f := fixtures[0]
	x := layertest.Input(eg, tensor.Float32, "x", []int{f.ns, 3}, layertest.Draw(rand.New(rand.NewPCG(1, 1)), f.ns*3))
	ya, err := a.Forward(f.graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	yb, err := b.Forward(f.graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	bs := b.Learnables()
	layertest.Set(bs[len(bs)-1], []float64{1, 1})
	got := layertest.Run(t, ya, yb)
	if layertest.Mismatch(got[0], got[1], 0.5) < 0 {
		t.Errorf("the two layers give the same output %v: their nodes merged", got[0])
	}
}

// TestGCNShared checks that two GCN-aggregator layers on one graph share the
// constant degree column without confusing graphs of the same size.
func TestGCNShared(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(8, 8))
	f, other := fixtures[0], fixtures[0]
	other.dst = []int32{0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // same size, other degrees
	var outs gorgonia.Nodes
	var ps []params
	x := layertest.Draw(r, f.ns*2)
	xn := layertest.Input(eg, tensor.Float64, "x", []int{f.ns, 2}, x)
	for _, fx := range []fixture{f, f, other} {
		l, err := sage.New(eg, 2, 2, sage.WithAggregator(sage.GCN), sage.WithDtype(tensor.Float64))
		if err != nil {
			t.Fatal(err)
		}
		layertest.Randomize(r, 0.5, l.Learnables()...)
		y, err := l.Forward(fx.graph(t), xn)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, y)
		ps = append(ps, params{neigh: layertest.Floats(l.Learnables()[0].Value()), b: layertest.Floats(l.Learnables()[1].Value())})
	}
	got := layertest.Run(t, outs...)
	for i, fx := range []fixture{f, f, other} {
		layertest.Expect(t, fmt.Sprintf("layer %d", i), got[i], reference(fx, sage.GCN, x, ps[i], nil, 2, 2, nil), 1e-12)
	}
}

// TestSeed checks that the initialisation is a function of the seed and
// dtype, that one layer's weights differ from each other and from those of
// a layer seeded one more, and the Glorot bound with gain sqrt(2).
func TestSeed(t *testing.T) {
	t.Parallel()
	values := func(seed uint64, dt tensor.Dtype) [][]float64 {
		l, err := sage.New(gorgonia.NewGraph(), 4, 4, sage.WithAggregator(sage.Pool), sage.WithSeed(seed), sage.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, p := range l.Learnables() {
			out = append(out, layertest.Floats(p.Value()))
		}
		return out
	}
	a, b, a32, next := values(7, tensor.Float64), values(7, tensor.Float64), values(7, tensor.Float32), values(8, tensor.Float64)
	for i := range a {
		layertest.Expect(t, fmt.Sprintf("same seed, parameter %d", i), b[i], a[i], 0)
		layertest.Expect(t, fmt.Sprintf("float32, parameter %d", i), a32[i], a[i], 1e-7)
	}
	weights := [][]float64{a[0], a[2], a[3], next[0], next[2], next[3]} // fc_pool, fc_self, fc_neigh
	for i := range weights {
		for j := range i {
			if layertest.Mismatch(weights[i], weights[j], 1e-3) < 0 {
				t.Errorf("weights %d and %d start equal", j, i)
			}
		}
	}
	bound := math.Sqrt2 * math.Sqrt(6.0/8)
	for _, w := range weights {
		for i, v := range w {
			if math.Abs(v) > bound {
				t.Errorf("weight[%d] = %v is outside ±%v", i, v, bound)
			}
		}
	}
	for _, i := range []int{1, 4} {
		layertest.Expect(t, "initial bias", a[i], make([]float64, len(a[i])), 0)
	}
}

// TestEdgeless runs every aggregator on graphs without edges, where only
// the self terms remain.
func TestEdgeless(t *testing.T) {
	t.Parallel()
	for _, f := range []fixture{{"homo", 4, 4, nil, nil}, {"block", 4, 2, nil, nil}} {
		for _, agg := range aggregators {
			t.Run(fmt.Sprintf("%s/%v", f.name, agg), func(t *testing.T) {
				r := rand.New(rand.NewPCG(2, 2))
				eg := gorgonia.NewGraph()
				l, err := sage.New(eg, 3, 2, sage.WithAggregator(agg), sage.WithDtype(tensor.Float64))
				if err != nil {
					t.Fatal(err)
				}
				layertest.Randomize(r, 0.5, l.Learnables()...)
				x := layertest.Draw(r, f.ns*3)
				y, err := l.Forward(f.graph(t), layertest.Input(eg, tensor.Float64, "x", []int{f.ns, 3}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := layertest.Run(t, append(gorgonia.Nodes{y}, l.Learnables()...)...)
				want := reference(f, agg, x, split(t, agg, true, got[1:]), nil, 3, 2, nil)
				layertest.Expect(t, "output", got[0], want, 1e-12)
			})
		}
	}
}
