package gin_test

import (
	"errors"
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
	"github.com/gnngo/gnn/nn/gin"
)

type fixture = layertest.Fixture

var fixtures = layertest.Blocks

var aggregators = []gin.Aggregator{gin.Sum, gin.Mean, gin.Max}

// mlp is a two-layer perceptron tanh(h W1 + b1) W2 built by the caller, as
// a GINConv apply function.
type mlp struct {
	w1, b1, w2 *gorgonia.Node
}

func newMLP(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand, name string, in, hidden, out int) *mlp {
	return &mlp{
		w1: gradcheck.Input(eg, dt, name+".w1", []int{in, hidden}, scaled(gradcheck.Draw(r, in*hidden), 0.5)),
		b1: gradcheck.Input(eg, dt, name+".b1", []int{hidden}, scaled(gradcheck.Draw(r, hidden), 0.5)),
		w2: gradcheck.Input(eg, dt, name+".w2", []int{hidden, out}, scaled(gradcheck.Draw(r, hidden*out), 0.5)),
	}
}

func scaled(v []float64, s float64) []float64 {
	for i := range v {
		v[i] = float64(float32(v[i] * s))
	}
	return v
}

func (m *mlp) apply(h *gorgonia.Node) (*gorgonia.Node, error) {
	h, err := gorgonia.Mul(h, m.w1)
	if err != nil {
		return nil, err
	}
	if h, err = gorgonia.BroadcastAdd(h, m.b1, nil, []byte{0}); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Tanh(h); err != nil {
		return nil, err
	}
	return gorgonia.Mul(h, m.w2)
}

func (m *mlp) params() gorgonia.Nodes { return gorgonia.Nodes{m.w1, m.b1, m.w2} }

// reference computes GINConv edge by edge: (1 + eps) x[v] plus the
// reduction of the weighted messages x[u] (sum, mean over max(deg, 1), or
// the elementwise max, 0 without in-edges), then the MLP when p is not nil.
func reference(f fixture, agg gin.Aggregator, x []float64, eps float64, ew []float64, in int, p [][]float64, hidden, out int) []float64 {
	red := make([]float64, f.NumDst*in)
	seen := make([]bool, f.NumDst*in)
	deg := make([]int, f.NumDst)
	for e := range f.Src {
		u, v := int(f.Src[e]), int(f.Dst[e])
		deg[v]++
		we := 1.0
		if ew != nil {
			we = ew[e]
		}
		for j := range in {
			m, k := we*x[u*in+j], v*in+j
			if agg == gin.Max {
				if !seen[k] || m > red[k] {
					red[k] = m
				}
				seen[k] = true
			} else {
				red[k] += m
			}
		}
	}
	h := make([]float64, f.NumDst*in)
	for k := range h {
		if agg == gin.Mean {
			red[k] /= math.Max(float64(deg[k/in]), 1)
		}
		h[k] = (1+eps)*x[k] + red[k] // destinations come first among the sources
	}
	if p == nil {
		return h
	}
	a := layertest.MatMul(h, p[0], f.NumDst, in, hidden)
	for i := range a {
		a[i] = math.Tanh(a[i] + p[1][i%hidden])
	}
	return layertest.MatMul(a, p[2], f.NumDst, hidden, out)
}

type epsCase struct {
	name  string
	eps   float64
	learn bool
}

var epsCases = []epsCase{{"gin0", 0, false}, {"fixed", 0.3, false}, {"learned", -0.2, true}}

// TestGolden compares the layer with the edge-by-edge reference for every
// aggregator and kind of ε, with and without an MLP and edge weights, on a
// homogeneous graph with a node without in-edges and on a block.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, dt := range gradcheck.Dtypes {
		for _, f := range fixtures {
			for _, agg := range aggregators {
				for _, ec := range epsCases {
					for _, withMLP := range []bool{false, true} {
						for _, weighted := range []bool{false, true} {
							name := fmt.Sprintf("%v/%s/%v/%s/mlp=%t/weighted=%t", dt, f.Name, agg, ec.name, withMLP, weighted)
							t.Run(name, func(t *testing.T) { golden(t, dt, f, agg, ec, withMLP, weighted) })
						}
					}
				}
			}
		}
	}
}

func golden(t *testing.T, dt tensor.Dtype, f fixture, agg gin.Aggregator, ec epsCase, withMLP, weighted bool) {
	const in, hidden, out = 3, 4, 2
	r := rand.New(rand.NewPCG(uint64(agg), 1))
	eg := gorgonia.NewGraph()
	opts := []gin.Option{gin.WithAggregator(agg), gin.WithEps(ec.eps), gin.WithLearnEps(ec.learn), gin.WithDtype(dt)}
	width := in
	var m *mlp
	if withMLP {
		m = newMLP(eg, dt, r, "mlp", in, hidden, out)
		opts = append(opts, gin.WithApply(m.apply, m.params()...))
		width = out
	}
	l, err := gin.New(eg, in, width, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Learnables()
	if want := layertest.Btoi(ec.learn) + 3*layertest.Btoi(withMLP); len(ps) != want {
		t.Fatalf("%d learnables, want %d", len(ps), want)
	}
	if (l.Eps() != nil) != ec.learn {
		t.Fatalf("Eps() = %v with learned ε %t", l.Eps(), ec.learn)
	}
	x := gradcheck.Draw(r, f.NumSrc*in)
	xn := gradcheck.Input(eg, dt, "x", []int{f.NumSrc, in}, x)
	var ew []float64
	var y *gorgonia.Node
	if weighted {
		ew = gradcheck.Draw(r, len(f.Src))
		y, err = l.ForwardWeighted(f.Graph(t), xn, gradcheck.Input(eg, dt, "ew", []int{len(ew)}, ew))
	} else {
		y, err = l.Forward(f.Graph(t), xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); !s.Eq(tensor.Shape{f.NumDst, width}) {
		t.Fatalf("output shape %v, want (%d, %d)", s, f.NumDst, width)
	}
	got := gradcheck.Run(t, append(gorgonia.Nodes{y}, ps...)...)
	vals := got[1:]
	eps := ec.eps
	if ec.learn {
		if !(math.Abs(vals[0][0]-eps) < 1e-7) || len(vals[0]) != 1 {
			t.Errorf("learned ε starts at %v, want [%v]", vals[0], eps)
		}
		vals = vals[1:]
	}
	var p [][]float64
	if withMLP {
		p = vals
	}
	want := reference(f, agg, x, eps, ew, in, p, hidden, out)
	gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
}

// TestGradients checks the gradients of the whole layer with respect to the
// features, the edge weights, a learned ε and the MLP's parameters, for
// every aggregator. Max has kinks, so its float32 gradients are compared
// with float64 ones (see layertest.GradCheck). The activation is nn.ELU:
// gorgonia.Tanh's backward overwrites its output (gradcheck checks that the
// output read after the gradient run is the forward value).
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, agg := range aggregators {
		for _, f := range fixtures {
			for _, ec := range epsCases[1:] {
				name := fmt.Sprintf("%v/%s/%s", agg, f.Name, ec.name)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					layertest.GradCheck(t, gradModel(f.Graph(t), agg, ec, f.Name == "homo"), layertest.GradConfig{Seed: 4, Kinks: agg == gin.Max})
				})
			}
		}
	}
}

func gradModel(g *graph.Graph, agg gin.Aggregator, ec epsCase, weighted bool) layertest.Model {
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(9, 9))
		m := newMLP(eg, dt, r, "mlp", 3, 4, 2)
		l, err := gin.New(eg, 3, 2, gin.WithAggregator(agg), gin.WithEps(ec.eps), gin.WithLearnEps(ec.learn),
			gin.WithApply(m.apply, m.params()...), gin.WithActivation(nn.ELU), gin.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		return layertest.Output(eg, dt, r, g, l, 3, weighted)
	}
}

// TestLearnEpsTrains runs Adam steps on a learned ε alone: the (1, 1)
// parameter must work with Gorgonia's solvers and move to lower the loss.
func TestLearnEpsTrains(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	eg := gorgonia.NewGraph()
	l, err := gin.New(eg, 2, 2, gin.WithLearnEps(true), gin.WithEps(0.5), gin.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{f.NumSrc, 2}, gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), f.NumSrc*2))
	y, err := l.Forward(f.Graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	sq, err := gorgonia.Square(y)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(sq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gorgonia.Grad(loss, l.Learnables()...); err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg, gorgonia.BindDualValues(l.Learnables()...))
	defer vm.Close()
	solver := gorgonia.NewAdamSolver(gorgonia.WithLearnRate(0.1))
	var first, last float64
	for step := range 5 {
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		last = gradcheck.Floats(loss.Value())[0]
		if step == 0 {
			first = last
		}
		if err := solver.Step(gorgonia.NodesToValueGrads(l.Learnables())); err != nil {
			t.Fatal(err)
		}
		vm.Reset()
	}
	if eps := gradcheck.Floats(l.Eps().Value())[0]; !(eps < 0.5) {
		t.Errorf("ε = %v after 5 steps from 0.5; the loss pulls it down", eps)
	}
	if !(last < first) {
		t.Errorf("loss went from %v to %v", first, last)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	id := func(h *gorgonia.Node) (*gorgonia.Node, error) { return h, nil }
	p := gradcheck.Input(eg, tensor.Float32, "p", []int{1}, []float64{1})
	layertest.NewErrors(t, "gin: ", gin.New, eg,
		layertest.Bad[gin.Option]("in-out", "needs in == out", 2, 3),
		layertest.Bad("aggregator", "unknown aggregator", 2, 2, gin.WithAggregator(gin.Aggregator(5))),
		layertest.Bad("eps", "not finite", 2, 2, gin.WithEps(math.Inf(1))),
		layertest.Bad("params-without-apply", "without an apply", 2, 2, gin.WithApply(nil, p)),
		layertest.Bad("nil-param", "parameter 0 is nil", 2, 2, gin.WithApply(id, nil)),
		layertest.Bad("dtype", "dtype", 2, 2, gin.WithDtype(tensor.Bool)),
		layertest.Bad("name", "empty name", 2, 2, gin.WithName("")),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	l, err := gin.New(eg, 3, 3, gin.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	errApply := errors.New("apply failed")
	failing, err := gin.New(eg, 3, 3, gin.WithApply(func(*gorgonia.Node) (*gorgonia.Node, error) { return nil, errApply }))
	if err != nil {
		t.Fatal(err)
	}
	wrongWidth, err := gin.New(eg, 3, 2, gin.WithApply(func(h *gorgonia.Node) (*gorgonia.Node, error) { return h, nil }))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.ForwardErrors(t, "gin: ", eg, g, l, 3, "gin: layer: ops:")
	layertest.ExpectError(t, "more-destinations", "gin: ", "6 destination nodes but 5 sources", func() (*gorgonia.Node, error) {
		return l.Forward(gradcheck.Graph(t, 5, 6, []int32{0}, []int32{5}), x)
	})
	layertest.ExpectError(t, "apply-error", "gin: ", "apply failed", func() (*gorgonia.Node, error) { return failing.Forward(g, x) })
	layertest.ExpectError(t, "apply-shape", "gin: ", "returned shape (5, 3), want (5, 2)", func() (*gorgonia.Node, error) { return wrongWidth.Forward(g, x) })
}

// TestUniqueNames builds two unnamed layers with learned ε in one graph:
// their ε must not merge.
func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := gin.New(eg, 2, 2, gin.WithLearnEps(true))
	if err != nil {
		t.Fatal(err)
	}
	b, err := gin.New(eg, 2, 2, gin.WithLearnEps(true))
	if err != nil {
		t.Fatal(err)
	}
	if a.Eps() == b.Eps() || a.Eps().Name() == b.Eps().Name() {
		t.Fatalf("both layers have ε %q", a.Eps().Name())
	}
	layertest.UniqueNames(t, eg, fixtures[0].Graph(t), 2, a, b, b.Eps(), []float64{1}, 0.1)
}

// TestEdgeless runs every aggregator on graphs without edges, where only
// (1 + ε) h_v remains.
func TestEdgeless(t *testing.T) {
	t.Parallel()
	for _, f := range layertest.Edgeless {
		for _, agg := range aggregators {
			t.Run(fmt.Sprintf("%s/%v", f.Name, agg), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				l, err := gin.New(eg, 3, 3, gin.WithAggregator(agg), gin.WithEps(0.5), gin.WithDtype(tensor.Float64))
				if err != nil {
					t.Fatal(err)
				}
				x := gradcheck.Draw(rand.New(rand.NewPCG(2, 2)), f.NumSrc*3)
				y, err := l.Forward(f.Graph(t), gradcheck.Input(eg, tensor.Float64, "x", []int{f.NumSrc, 3}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, y)[0]
				want := reference(f, agg, x, 0.5, nil, 3, nil, 0, 0)
				gradcheck.Expect(t, "output", got, want, 1e-12)
			})
		}
	}
}

// TestWithValues checks that GINConv takes its learned ε from WithValues
// by name, and starts from WithEps as without it when values has none of
// the right shape.
func TestWithValues(t *testing.T) {
	layertest.Values(t, func(eg *gorgonia.ExprGraph, values nn.Values) (gorgonia.Nodes, error) {
		l, err := gin.New(eg, 4, 4, gin.WithLearnEps(true), gin.WithEps(0.25), gin.WithValues(values), gin.WithName("gin1"))
		if err != nil {
			return nil, err
		}
		return l.Learnables(), nil
	})
}
