package sage_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
)

var aggregators = []sage.Aggregator{sage.Mean, sage.GCN, sage.Pool}

// split names a layer's learnables by role (see Learnables).
func split(t testing.TB, agg sage.Aggregator, bias bool, vals [][]float64) params {
	t.Helper()
	want := 1 + layertest.Btoi(agg != sage.GCN) + 2*layertest.Btoi(agg == sage.Pool) + layertest.Btoi(bias)
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

// TestGolden compares the layer with the edge-by-edge reference for every
// aggregator, with and without edge weights, on a homogeneous graph with a
// node without in-edges and on a block, for in > out (W_neigh applied before
// the aggregation) and in < out.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, dt := range gradcheck.Dtypes {
		for _, f := range fixtures {
			for _, agg := range aggregators {
				for _, weighted := range []bool{false, true} {
					for _, d := range [][2]int{{4, 2}, {2, 3}} {
						name := fmt.Sprintf("%v/%s/%v/weighted=%t/in=%d/out=%d", dt, f.Name, agg, weighted, d[0], d[1])
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
	for _, dt := range gradcheck.Dtypes {
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

func golden(t *testing.T, dt tensor.Dtype, f fixture, agg sage.Aggregator, weighted, bias bool, in, out int, act nn.Activation, ref func(float64) float64) {
	r := rand.New(rand.NewPCG(uint64(in*10+out), uint64(agg)))
	eg := gorgonia.NewGraph()
	l, err := sage.New(eg, in, out, sage.WithAggregator(agg), sage.WithBias(bias), sage.WithActivation(act), sage.WithDtype(dt))
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Learnables()
	layertest.Randomize(r, 0.5, ps...)
	x := gradcheck.Draw(r, f.NumSrc*in)
	xn := gradcheck.Input(eg, dt, "x", []int{f.NumSrc, in}, x)
	var ew []float64
	var y *gorgonia.Node
	if weighted {
		ew = gradcheck.Draw(r, len(f.Src))
		shape := []int{len(ew)} // a vector on one dtype, a column on the other
		if dt == tensor.Float32 {
			shape = append(shape, 1)
		}
		y, err = l.ForwardWeighted(f.Graph(t), xn, gradcheck.Input(eg, dt, "ew", shape, ew))
	} else {
		y, err = l.Forward(f.Graph(t), xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); !s.Eq(tensor.Shape{f.NumDst, out}) {
		t.Fatalf("output shape %v, want (%d, %d)", s, f.NumDst, out)
	}
	got := gradcheck.Run(t, append(gorgonia.Nodes{y}, ps...)...)
	want := reference(f, agg, x, split(t, agg, bias, got[1:]), ew, in, out, ref)
	gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
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
			name := fmt.Sprintf("%v/%s/weighted=%t/in=%d/out=%d", agg, c.f.Name, c.weighted, c.in, c.out)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				model := gradModel(c.f.Graph(t), c.weighted, c.in, c.out, sage.WithAggregator(agg))
				layertest.GradCheck(t, model, layertest.GradConfig{Seed: 3, Kinks: agg == sage.Pool})
			})
		}
	}
	t.Run("dropout-training", func(t *testing.T) {
		t.Parallel()
		mode := nn.NewMode()
		mode.Next()
		model := gradModel(fixtures[0].Graph(t), true, 3, 2, sage.WithFeatDropout(0.4), sage.WithMode(mode), sage.WithActivation(nn.ELU))
		layertest.GradCheck(t, model, layertest.GradConfig{Seed: 3})
	})
}

func gradModel(g *graph.Graph, weighted bool, in, out int, opts ...sage.Option) layertest.Model {
	return layertest.LayerModel(g, in, weighted, 6, func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (layertest.Layer, error) {
		return sage.New(eg, in, out, append(opts, sage.WithDtype(dt), sage.WithSeed(7))...)
	})
}

// TestDropoutModes checks that dropout is the identity in evaluation and
// changes the output in training.
func TestDropoutModes(t *testing.T) {
	t.Parallel()
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
	layertest.DropoutModes(t, eg, fixtures[0].Graph(t), 3, mode, plain, dropped)
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	layertest.NewErrors(t, "sage: ", sage.New, gorgonia.NewGraph(),
		layertest.Bad("aggregator", "unknown aggregator", 2, 2, sage.WithAggregator(sage.Aggregator(9))),
		layertest.Bad("dropout", "feature dropout", 2, 2, sage.WithFeatDropout(1)),
		layertest.Bad("nan-dropout", "feature dropout", 2, 2, sage.WithFeatDropout(math.NaN())),
		layertest.Bad("dropout-without-mode", "WithMode", 2, 2, sage.WithFeatDropout(0.5)),
		layertest.Bad("dtype", "dtype", 2, 2, sage.WithDtype(tensor.Int)),
		layertest.Bad("name", "empty name", 2, 2, sage.WithName("")),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	l, err := sage.New(eg, 3, 2, sage.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.ForwardErrors(t, "sage: ", eg, g, l, 3, "sage: layer: ops:")
	layertest.ExpectError(t, "more-destinations", "sage: ", "6 destination nodes but 5 sources", func() (*gorgonia.Node, error) {
		return l.Forward(gradcheck.Graph(t, 5, 6, []int32{0}, []int32{5}), x)
	})
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
	bs := b.Learnables()
	layertest.UniqueNames(t, eg, fixtures[0].Graph(t), 3, a, b, bs[len(bs)-1], []float64{1, 1}, 0.5)
}

// TestGCNShared checks that two GCN-aggregator layers on one graph share the
// constant degree column without confusing graphs of the same size.
func TestGCNShared(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(8, 8))
	f, other := fixtures[0], fixtures[0]
	other.Dst = []int32{0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // same size, other degrees
	var outs gorgonia.Nodes
	var ps []params
	x := gradcheck.Draw(r, f.NumSrc*2)
	xn := gradcheck.Input(eg, tensor.Float64, "x", []int{f.NumSrc, 2}, x)
	for _, fx := range []fixture{f, f, other} {
		l, err := sage.New(eg, 2, 2, sage.WithAggregator(sage.GCN), sage.WithDtype(tensor.Float64))
		if err != nil {
			t.Fatal(err)
		}
		layertest.Randomize(r, 0.5, l.Learnables()...)
		y, err := l.Forward(fx.Graph(t), xn)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, y)
		ps = append(ps, params{neigh: gradcheck.Floats(l.Learnables()[0].Value()), b: gradcheck.Floats(l.Learnables()[1].Value())})
	}
	got := gradcheck.Run(t, outs...)
	for i, fx := range []fixture{f, f, other} {
		gradcheck.Expect(t, fmt.Sprintf("layer %d", i), got[i], reference(fx, sage.GCN, x, ps[i], nil, 2, 2, nil), 1e-12)
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
		return gradcheck.Values(l.Learnables())
	}
	a, next := layertest.Seeded(t, 7, values)
	weights := [][]float64{a[0], a[2], a[3], next[0], next[2], next[3]} // fc_pool, fc_self, fc_neigh
	for i := range weights {
		for j := range i {
			if !gradcheck.Differ(weights[i], weights[j], 1e-3) {
				t.Errorf("weights %d and %d start equal", j, i)
			}
		}
	}
	for _, w := range weights {
		layertest.Bounded(t, w, math.Sqrt2*math.Sqrt(6.0/8))
	}
	for _, i := range []int{1, 4} {
		gradcheck.Expect(t, "initial bias", a[i], make([]float64, len(a[i])), 0)
	}
}

// TestEdgeless runs every aggregator on graphs without edges, where only
// the self terms remain.
func TestEdgeless(t *testing.T) {
	t.Parallel()
	for _, f := range layertest.Edgeless {
		for _, agg := range aggregators {
			t.Run(fmt.Sprintf("%s/%v", f.Name, agg), func(t *testing.T) {
				r := rand.New(rand.NewPCG(2, 2))
				eg := gorgonia.NewGraph()
				l, err := sage.New(eg, 3, 2, sage.WithAggregator(agg), sage.WithDtype(tensor.Float64))
				if err != nil {
					t.Fatal(err)
				}
				layertest.Randomize(r, 0.5, l.Learnables()...)
				x := gradcheck.Draw(r, f.NumSrc*3)
				y, err := l.Forward(f.Graph(t), gradcheck.Input(eg, tensor.Float64, "x", []int{f.NumSrc, 3}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, append(gorgonia.Nodes{y}, l.Learnables()...)...)
				want := reference(f, agg, x, split(t, agg, true, got[1:]), nil, 3, 2, nil)
				gradcheck.Expect(t, "output", got[0], want, 1e-12)
			})
		}
	}
}

// TestWithValues checks that SAGEConv takes its initial values from
// WithValues by name, and draws as without it when values has none of the
// right shape.
func TestWithValues(t *testing.T) {
	layertest.Values(t, func(eg *gorgonia.ExprGraph, values nn.Values) (gorgonia.Nodes, error) {
		l, err := sage.New(eg, 5, 3, sage.WithAggregator(sage.Pool), sage.WithValues(values), sage.WithName("sage1"))
		if err != nil {
			return nil, err
		}
		return l.Learnables(), nil
	})
}
