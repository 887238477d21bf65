package gin_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/internal/layertest"
)

// fixture is a test graph. homo has self-loops (1 -> 1 twice, 2 -> 2),
// parallel edges (0 -> 4 twice) and node 0 without in-edges; block is
// bipartite with its 3 destinations first among its 6 sources, as a
// message-flow block.
type fixture struct {
	name     string
	ns, nd   int
	src, dst []int32
}

var fixtures = []fixture{
	{"homo", 5, 5, []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 1}, []int32{1, 1, 2, 1, 3, 4, 4, 2, 3, 1}},
	{"block", 6, 3, []int32{3, 4, 5, 0, 1, 2, 5, 4}, []int32{0, 0, 1, 1, 2, 2, 2, 0}},
}

func (f fixture) graph(t testing.TB) *graph.Graph {
	return layertest.Graph(t, f.ns, f.nd, f.src, f.dst)
}

var aggregators = []gin.Aggregator{gin.Sum, gin.Mean, gin.Max}

// mlp is a two-layer perceptron tanh(h W1 + b1) W2 built by the caller, as
// a GINConv apply function.
type mlp struct {
	w1, b1, w2 *gorgonia.Node
}

func newMLP(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand, name string, in, hidden, out int) *mlp {
	return &mlp{
		w1: layertest.Input(eg, dt, name+".w1", []int{in, hidden}, scaled(layertest.Draw(r, in*hidden), 0.5)),
		b1: layertest.Input(eg, dt, name+".b1", []int{hidden}, scaled(layertest.Draw(r, hidden), 0.5)),
		w2: layertest.Input(eg, dt, name+".w2", []int{hidden, out}, scaled(layertest.Draw(r, hidden*out), 0.5)),
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
	red := make([]float64, f.nd*in)
	seen := make([]bool, f.nd*in)
	deg := make([]int, f.nd)
	for e := range f.src {
		u, v := int(f.src[e]), int(f.dst[e])
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
	h := make([]float64, f.nd*in)
	for k := range h {
		if agg == gin.Mean {
			red[k] /= math.Max(float64(deg[k/in]), 1)
		}
		h[k] = (1+eps)*x[k] + red[k] // destinations come first among the sources
	}
	if p == nil {
		return h
	}
	a := matmul(h, p[0], f.nd, in, hidden)
	for i := range a {
		a[i] = math.Tanh(a[i] + p[1][i%hidden])
	}
	return matmul(a, p[2], f.nd, hidden, out)
}

// matmul returns the n x m product of a (n x k) and b (k x m).
func matmul(a, b []float64, n, k, m int) []float64 {
	c := make([]float64, n*m)
	for i := range n {
		for j := range m {
			for l := range k {
				c[i*m+j] += a[i*k+l] * b[l*m+j]
			}
		}
	}
	return c
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
	for _, dt := range layertest.Dtypes {
		for _, f := range fixtures {
			for _, agg := range aggregators {
				for _, ec := range epsCases {
					for _, withMLP := range []bool{false, true} {
						for _, weighted := range []bool{false, true} {
							name := fmt.Sprintf("%v/%s/%v/%s/mlp=%t/weighted=%t", dt, f.name, agg, ec.name, withMLP, weighted)
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
	if want := btoi(ec.learn) + 3*btoi(withMLP); len(ps) != want {
		t.Fatalf("%d learnables, want %d", len(ps), want)
	}
	if (l.Eps() != nil) != ec.learn {
		t.Fatalf("Eps() = %v with learned ε %t", l.Eps(), ec.learn)
	}
	x := layertest.Draw(r, f.ns*in)
	xn := layertest.Input(eg, dt, "x", []int{f.ns, in}, x)
	var ew []float64
	var y *gorgonia.Node
	if weighted {
		ew = layertest.Draw(r, len(f.src))
		y, err = l.ForwardWeighted(f.graph(t), xn, layertest.Input(eg, dt, "ew", []int{len(ew)}, ew))
	} else {
		y, err = l.Forward(f.graph(t), xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); !s.Eq(tensor.Shape{f.nd, width}) {
		t.Fatalf("output shape %v, want (%d, %d)", s, f.nd, width)
	}
	got := layertest.Run(t, append(gorgonia.Nodes{y}, ps...)...)
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
	layertest.Expect(t, "output", got[0], want, layertest.Tol(dt))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGradients checks the gradients of the whole layer with respect to the
// features, the edge weights, a learned ε and the MLP's parameters, for
// every aggregator. Max has kinks, so its float32 gradients are compared
// with float64 ones (see layertest.GradCheck).
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, agg := range aggregators {
		for _, f := range fixtures {
			for _, ec := range epsCases[1:] {
				name := fmt.Sprintf("%v/%s/%s", agg, f.name, ec.name)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					layertest.GradCheck(t, gradModel(f, agg, ec, f.name == "homo"), layertest.GradConfig{Seed: 4, Kinks: agg == gin.Max})
				})
			}
		}
	}
}

func gradModel(f fixture, agg gin.Aggregator, ec epsCase, weighted bool) layertest.Model {
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(9, 9))
		g, err := graph.FromCOO(f.ns, f.nd, f.src, f.dst)
		if err != nil {
			return nil, nil, err
		}
		m := newMLP(eg, dt, r, "mlp", 3, 4, 2)
		l, err := gin.New(eg, 3, 2, gin.WithAggregator(agg), gin.WithEps(ec.eps), gin.WithLearnEps(ec.learn),
			gin.WithApply(m.apply, m.params()...), gin.WithActivation(gorgonia.Tanh), gin.WithDtype(dt))
		if err != nil {
			return nil, nil, err
		}
		x := layertest.Input(eg, dt, "x", []int{f.ns, 3}, layertest.Draw(r, f.ns*3))
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
	x := layertest.Input(eg, tensor.Float64, "x", []int{f.ns, 2}, layertest.Draw(rand.New(rand.NewPCG(1, 1)), f.ns*2))
	y, err := l.Forward(f.graph(t), x)
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
		last = layertest.Floats(loss.Value())[0]
		if step == 0 {
			first = last
		}
		if err := solver.Step(gorgonia.NodesToValueGrads(l.Learnables())); err != nil {
			t.Fatal(err)
		}
		vm.Reset()
	}
	if eps := layertest.Floats(l.Eps().Value())[0]; !(eps < 0.5) {
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
	cases := []struct {
		name    string
		eg      *gorgonia.ExprGraph
		in, out int
		opts    []gin.Option
		want    string
	}{
		{"nil-graph", nil, 2, 2, nil, "nil expression graph"},
		{"zero-in", eg, 0, 2, nil, "must be positive"},
		{"zero-out", eg, 2, 0, nil, "must be positive"},
		{"in-out", eg, 2, 3, nil, "needs in == out"},
		{"aggregator", eg, 2, 2, []gin.Option{gin.WithAggregator(gin.Aggregator(5))}, "unknown aggregator"},
		{"eps", eg, 2, 2, []gin.Option{gin.WithEps(math.Inf(1))}, "not finite"},
		{"params-without-apply", eg, 2, 2, []gin.Option{gin.WithApply(nil, layertest.Input(eg, tensor.Float32, "p", []int{1}, []float64{1}))}, "without an apply"},
		{"nil-param", eg, 2, 2, []gin.Option{gin.WithApply(id, nil)}, "parameter 0 is nil"},
		{"dtype", eg, 2, 2, []gin.Option{gin.WithDtype(tensor.Bool)}, "dtype"},
		{"name", eg, 2, 2, []gin.Option{gin.WithName("")}, "empty name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := gin.New(c.eg, c.in, c.out, c.opts...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want an error containing %q", l, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "gin: ") {
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
		{"apply-error", func() (*gorgonia.Node, error) { return failing.Forward(g, x) }, "apply failed"},
		{"apply-shape", func() (*gorgonia.Node, error) { return wrongWidth.Forward(g, x) }, "returned shape (5, 3), want (5, 2)"},
		{"nil-weight", func() (*gorgonia.Node, error) { return l.ForwardWeighted(g, x, nil) }, "nil edge weight"},
		{"weight-rows", func() (*gorgonia.Node, error) {
			return l.ForwardWeighted(g, x, input(tensor.Float32, "ew", 3, 1))
		}, "gin: layer: ops:"},
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
	f := fixtures[0]
	x := layertest.Input(eg, tensor.Float32, "x", []int{f.ns, 2}, layertest.Draw(rand.New(rand.NewPCG(1, 1)), f.ns*2))
	ya, err := a.Forward(f.graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	yb, err := b.Forward(f.graph(t), x)
	if err != nil {
		t.Fatal(err)
	}
	layertest.Set(b.Eps(), []float64{1})
	got := layertest.Run(t, ya, yb)
	if layertest.Mismatch(got[0], got[1], 0.1) < 0 {
		t.Errorf("the two layers give the same output %v: their nodes merged", got[0])
	}
}

// TestEdgeless runs every aggregator on graphs without edges, where only
// (1 + ε) h_v remains.
func TestEdgeless(t *testing.T) {
	t.Parallel()
	for _, f := range []fixture{{"homo", 4, 4, nil, nil}, {"block", 4, 2, nil, nil}} {
		for _, agg := range aggregators {
			t.Run(fmt.Sprintf("%s/%v", f.name, agg), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				l, err := gin.New(eg, 3, 3, gin.WithAggregator(agg), gin.WithEps(0.5), gin.WithDtype(tensor.Float64))
				if err != nil {
					t.Fatal(err)
				}
				x := layertest.Draw(rand.New(rand.NewPCG(2, 2)), f.ns*3)
				y, err := l.Forward(f.graph(t), layertest.Input(eg, tensor.Float64, "x", []int{f.ns, 3}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := layertest.Run(t, y)[0]
				want := reference(f, agg, x, 0.5, nil, 3, nil, 0, 0)
				layertest.Expect(t, "output", got, want, 1e-12)
			})
		}
	}
}
