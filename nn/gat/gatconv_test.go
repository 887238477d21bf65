package gat_test

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
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/internal/layertest"
)

type goldenCase struct {
	name             string
	in, heads, out   int
	slope            float64
	residual, mean   bool
	bias, weighted   bool
	act              gat.Activation
	ref              func(float64) float64
	wantResParameter bool
}

var goldenCases = []goldenCase{
	{name: "one-head", in: 3, heads: 1, out: 2, slope: 0.2, bias: true},
	{name: "concat", in: 3, heads: 2, out: 2, slope: 0.2, bias: true},
	{name: "concat-residual-projection", in: 3, heads: 2, out: 2, slope: 0.2, residual: true, bias: true, wantResParameter: true},
	{name: "concat-residual-identity", in: 4, heads: 2, out: 2, slope: 0.2, residual: true, bias: true},
	{name: "mean-residual-projection", in: 3, heads: 3, out: 2, slope: 0.2, residual: true, mean: true, bias: true, wantResParameter: true},
	{name: "mean-residual-identity-weighted", in: 4, heads: 2, out: 2, slope: 0.2, residual: true, mean: true, bias: true, weighted: true},
	{name: "weighted", in: 3, heads: 2, out: 3, slope: 0.2, bias: true, weighted: true},
	{name: "slope-no-bias-elu", in: 3, heads: 2, out: 2, slope: 0.05, act: nn.ELU, ref: elu},
	{name: "mean-tanh", in: 3, heads: 2, out: 2, slope: 0.2, mean: true, bias: true, act: gorgonia.Tanh, ref: math.Tanh},
}

func (c goldenCase) options(dt tensor.Dtype) []gat.Option {
	return []gat.Option{
		gat.WithHeads(c.heads), gat.WithNegativeSlope(c.slope), gat.WithResidual(c.residual),
		gat.WithMeanHeads(c.mean), gat.WithBias(c.bias), gat.WithActivation(c.act), gat.WithDtype(dt),
	}
}

// layerParams names a layer's learnables by role, given whether it has a
// residual projection and a bias.
func layerParams(t testing.TB, l *gat.GATConv, res, bias bool) (w, al, ar, rw, b *gorgonia.Node) {
	t.Helper()
	ps := l.Learnables()
	if want := 3 + btoi(res) + btoi(bias); len(ps) != want {
		t.Fatalf("%d learnables %v, want %d", len(ps), ps, want)
	}
	w, al, ar = ps[0], ps[1], ps[2]
	i := 3
	if res {
		rw, i = ps[i], i+1
	}
	if bias {
		b = ps[i]
	}
	return w, al, ar, rw, b
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGolden compares the output and the attention with the hand
// computation, for one and several heads, concatenated and averaged, with
// identity and projected residuals, edge weights, another slope, no bias and
// activations.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		for _, dt := range layertest.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(c.in), uint64(c.heads)))
				g := layertest.Graph(t, testN, testN, testSrc, testDst)
				eg := gorgonia.NewGraph()
				l, err := gat.New(eg, c.in, c.out, c.options(dt)...)
				if err != nil {
					t.Fatal(err)
				}
				w, al, ar, rw, b := layerParams(t, l, c.wantResParameter, c.bias)
				if s := al.Shape(); !s.Eq(tensor.Shape{1, c.heads, c.out}) {
					t.Errorf("attention parameter shape %v, want (1, %d, %d)", s, c.heads, c.out)
				}
				layertest.Randomize(r, 0.5, l.Learnables()...)
				x := layertest.Draw(r, testN*c.in)
				xn := layertest.Input(eg, dt, "x", []int{testN, c.in}, x)
				var ew []float64
				var y, attn *gorgonia.Node
				if c.weighted {
					ew = layertest.Draw(r, len(testSrc))
					y, err = l.ForwardWeighted(g, xn, layertest.Input(eg, dt, "ew", []int{len(ew), 1}, ew))
				} else {
					y, attn, err = l.ForwardWithAttention(g, xn)
				}
				if err != nil {
					t.Fatal(err)
				}
				width := c.heads * c.out
				if c.mean {
					width = c.out
				}
				if s := y.Shape(); !s.Eq(tensor.Shape{testN, width}) {
					t.Fatalf("output shape %v, want (%d, %d)", s, testN, width)
				}
				nodes := gorgonia.Nodes{y, w, al, ar}
				for _, n := range []*gorgonia.Node{rw, b, attn} {
					if n != nil {
						nodes = append(nodes, n)
					}
				}
				got := layertest.Run(t, nodes...)
				p := params{w: got[1], al: got[2], ar: got[3]}
				i := 4
				if rw != nil {
					p.res, i = got[i], i+1
				}
				if b != nil {
					p.b, i = got[i], i+1
				}
				want, alpha := reference(x, p, ew, c.in, c.heads, c.out, c.slope, c.residual, c.mean, c.ref)
				layertest.Expect(t, "output", got[0], want, layertest.Tol(dt))
				if attn != nil {
					if s := attn.Shape(); !s.Eq(tensor.Shape{len(testSrc), c.heads, 1}) {
						t.Errorf("attention shape %v, want (%d, %d, 1)", s, len(testSrc), c.heads)
					}
					layertest.Expect(t, "attention", got[i], alpha, layertest.Tol(dt))
				}
			})
		}
	}
}

// TestDropoutModes checks that dropout is the identity in evaluation and
// changes the output in training.
func TestDropoutModes(t *testing.T) {
	t.Parallel()
	g := layertest.Graph(t, testN, testN, testSrc, testDst)
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	plain, err := gat.New(eg, 3, 2, gat.WithHeads(2), gat.WithName("plain"), gat.WithSeed(7), gat.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := gat.New(eg, 3, 2, gat.WithHeads(2), gat.WithName("dropped"), gat.WithSeed(7), gat.WithDtype(tensor.Float64),
		gat.WithFeatDropout(0.5), gat.WithAttnDropout(0.5), gat.WithMode(mode))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.Input(eg, tensor.Float64, "x", []int{testN, 3}, layertest.Draw(rand.New(rand.NewPCG(1, 2)), testN*3))
	y0, err := plain.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	y1, err := dropped.Forward(g, x)
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

// TestGradients checks the gradients of the whole layer with respect to the
// features, the edge weights and every parameter. LeakyReLU has a kink, so
// float32 is compared with float64 (see layertest.GradCheck).
func TestGradients(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		in       int
		opts     []gat.Option
		weighted bool
		dropout  bool
	}{
		{name: "concat-residual-projection", in: 3, opts: []gat.Option{gat.WithResidual(true)}},
		{name: "mean-residual-identity-weighted", in: 4, opts: []gat.Option{gat.WithResidual(true), gat.WithMeanHeads(true)}, weighted: true},
		{name: "no-bias-elu", in: 3, opts: []gat.Option{gat.WithBias(false), gat.WithActivation(nn.ELU)}},
		{name: "dropout-training", in: 3, opts: []gat.Option{gat.WithFeatDropout(0.3), gat.WithAttnDropout(0.3)}, dropout: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			model := func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
				r := rand.New(rand.NewPCG(4, 4))
				g, err := graph.FromCOO(testN, testN, testSrc, testDst)
				if err != nil {
					return nil, nil, err
				}
				opts := append([]gat.Option{gat.WithHeads(2), gat.WithDtype(dt)}, c.opts...)
				if c.dropout {
					mode := nn.NewMode()
					mode.Next()
					opts = append(opts, gat.WithMode(mode))
				}
				l, err := gat.New(eg, c.in, 2, append(opts, gat.WithSeed(7))...)
				if err != nil {
					return nil, nil, err
				}
				layertest.Randomize(r, 0.5, l.Learnables()...)
				x := layertest.Input(eg, dt, "x", []int{testN, c.in}, layertest.Draw(r, testN*c.in))
				wrt := append(gorgonia.Nodes{x}, l.Learnables()...)
				if !c.weighted {
					y, err := l.Forward(g, x)
					return y, wrt, err
				}
				ew := layertest.Input(eg, dt, "ew", []int{len(testSrc), 1}, layertest.Draw(r, len(testSrc)))
				y, err := l.ForwardWeighted(g, x, ew)
				return y, append(wrt, ew), err
			}
			layertest.GradCheck(t, model, layertest.GradConfig{Seed: 9, Kinks: true})
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	cases := []struct {
		name    string
		eg      *gorgonia.ExprGraph
		in, out int
		opts    []gat.Option
		want    string
	}{
		{"nil-graph", nil, 2, 2, nil, "nil expression graph"},
		{"zero-in", eg, 0, 2, nil, "must be positive"},
		{"zero-out", eg, 2, 0, nil, "must be positive"},
		{"heads", eg, 2, 2, []gat.Option{gat.WithHeads(0)}, "heads must be positive"},
		{"feat-dropout", eg, 2, 2, []gat.Option{gat.WithFeatDropout(1)}, "feature dropout"},
		{"attn-dropout", eg, 2, 2, []gat.Option{gat.WithAttnDropout(-0.1)}, "attention dropout"},
		{"nan-dropout", eg, 2, 2, []gat.Option{gat.WithAttnDropout(math.NaN())}, "attention dropout"},
		{"slope", eg, 2, 2, []gat.Option{gat.WithNegativeSlope(-1)}, "negative slope"},
		{"dropout-without-mode", eg, 2, 2, []gat.Option{gat.WithFeatDropout(0.5)}, "WithMode"},
		{"dtype", eg, 2, 2, []gat.Option{gat.WithDtype(tensor.Int64)}, "dtype"},
		{"name", eg, 2, 2, []gat.Option{gat.WithName("")}, "empty name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := gat.New(c.eg, c.in, c.out, c.opts...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want an error containing %q", l, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "gat: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := layertest.Graph(t, testN, testN, testSrc, testDst)
	bip := layertest.Graph(t, 5, 3, []int32{0, 1, 4}, []int32{0, 1, 2})
	eg := gorgonia.NewGraph()
	l, err := gat.New(eg, 3, 2, gat.WithHeads(2), gat.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	input := func(dt tensor.Dtype, name string, shape ...int) *gorgonia.Node {
		return layertest.Input(eg, dt, name, shape, make([]float64, tensor.Shape(shape).TotalSize()))
	}
	x := input(tensor.Float32, "x", testN, 3)
	cases := []struct {
		name string
		run  func() (*gorgonia.Node, error)
		want string
	}{
		{"nil-graph", func() (*gorgonia.Node, error) { return l.Forward(nil, x) }, "needs a graph"},
		{"nil-features", func() (*gorgonia.Node, error) { return l.Forward(g, nil) }, "needs a graph"},
		{"bipartite", func() (*gorgonia.Node, error) { return l.Forward(bip, x) }, "homogeneous"},
		{"columns", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "x4", testN, 4)) }, "want (5, 3)"},
		{"rows", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "x6", 6, 3)) }, "want (5, 3)"},
		{"dtype", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float64, "x64", testN, 3)) }, "dtype"},
		{"nil-weight", func() (*gorgonia.Node, error) { return l.ForwardWeighted(g, x, nil) }, "nil edge weight"},
		{"weight-rows", func() (*gorgonia.Node, error) {
			return l.ForwardWeighted(g, x, input(tensor.Float32, "ew", 2, 1))
		}, "edge weight"},
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

// TestZeroInDegree checks that Forward names how many nodes lack in-edges,
// and that with WithAllowZeroInDegree those nodes get the residual and bias
// alone.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	// Nodes 0 and 3 have no in-edges.
	g := layertest.Graph(t, 5, 5, []int32{0, 1, 2, 4, 0}, []int32{1, 2, 1, 2, 4})
	eg := gorgonia.NewGraph()
	xv := layertest.Draw(rand.New(rand.NewPCG(1, 1)), 10)
	x := layertest.Input(eg, tensor.Float64, "x", []int{5, 2}, xv)
	strict, err := gat.New(eg, 2, 1, gat.WithHeads(2), gat.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.Forward(g, x)
	if err == nil || !strings.Contains(err.Error(), "2 of 5 nodes have no in-edges (node 0 first)") || !strings.Contains(err.Error(), "WithAllowZeroInDegree") {
		t.Fatalf("Forward error %v; want one naming the 2 nodes and the option", err)
	}

	lax, err := gat.New(eg, 2, 1, gat.WithHeads(2), gat.WithDtype(tensor.Float64), gat.WithResidual(true), gat.WithAllowZeroInDegree(true))
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, _, b := layerParams(t, lax, false, true)
	layertest.Set(b, []float64{0.25, -0.5})
	y, err := lax.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	got := layertest.Run(t, y)[0]
	for _, v := range []int{0, 3} {
		want := []float64{xv[2*v] + 0.25, xv[2*v+1] - 0.5}
		layertest.Expect(t, fmt.Sprintf("row %d", v), got[2*v:2*v+2], want, 1e-15)
	}

	// Even allowed, a graph without edges has nothing to attend over.
	_, err = lax.Forward(layertest.Graph(t, 5, 5, nil, nil), x)
	if err == nil || !strings.Contains(err.Error(), "no edges") {
		t.Errorf("Forward on an edgeless graph: error %v, want one saying it has no edges", err)
	}
}

// TestUniqueNames builds two unnamed layers of the same shape and seed in one
// graph: their parameters must not merge.
func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := gat.New(eg, 3, 2, gat.WithHeads(2), gat.WithResidual(true))
	if err != nil {
		t.Fatal(err)
	}
	b, err := gat.New(eg, 3, 2, gat.WithHeads(2), gat.WithResidual(true))
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
	g := layertest.Graph(t, testN, testN, testSrc, testDst)
	x := layertest.Input(eg, tensor.Float32, "x", []int{testN, 3}, layertest.Draw(rand.New(rand.NewPCG(1, 1)), testN*3))
	ya, err := a.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	yb, err := b.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, _, bb := layerParams(t, b, true, true)
	layertest.Set(bb, []float64{1, 1, 1, 1})
	got := layertest.Run(t, ya, yb)
	if layertest.Mismatch(got[0], got[1], 0.5) < 0 {
		t.Errorf("the two layers give the same output %v: their nodes merged", got[0])
	}
}

// TestSeed checks that the initialisation is a function of the seed and
// dtype, that the weight, attention and residual parameters of one layer
// differ, and that the Glorot bound with gain sqrt(2) holds.
func TestSeed(t *testing.T) {
	t.Parallel()
	values := func(seed uint64, dt tensor.Dtype) [][]float64 {
		l, err := gat.New(gorgonia.NewGraph(), 4, 3, gat.WithHeads(2), gat.WithResidual(true), gat.WithSeed(seed), gat.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		var out [][]float64
		for _, p := range l.Learnables() {
			out = append(out, layertest.Floats(p.Value()))
		}
		return out
	}
	a, b, c, a32 := values(7, tensor.Float64), values(7, tensor.Float64), values(8, tensor.Float64), values(7, tensor.Float32)
	for i := range a {
		layertest.Expect(t, fmt.Sprintf("same seed, parameter %d", i), b[i], a[i], 0)
		layertest.Expect(t, fmt.Sprintf("float32, parameter %d", i), a32[i], a[i], 1e-7)
	}
	if layertest.Mismatch(a[0], c[0], 1e-3) < 0 {
		t.Error("seeds 7 and 8 give the same weight")
	}
	if layertest.Mismatch(a[1], a[2], 1e-3) < 0 {
		t.Error("attn_l and attn_r start equal")
	}
	if layertest.Mismatch(a[0], a[3], 1e-3) < 0 {
		t.Error("the weight and the residual projection start equal")
	}
	bound := math.Sqrt2 * math.Sqrt(6.0/(4+6))
	for i, v := range a[0] {
		if math.Abs(v) > bound {
			t.Errorf("weight[%d] = %v is outside ±%v", i, v, bound)
		}
	}
}
