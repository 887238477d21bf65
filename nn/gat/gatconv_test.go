package gat_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
)

type goldenCase struct {
	name             string
	in, heads, out   int
	slope            float64
	residual, mean   bool
	bias, weighted   bool
	act              nn.Activation
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
	if want := 3 + layertest.Btoi(res) + layertest.Btoi(bias); len(ps) != want {
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

// TestGolden compares the output and the attention with the hand
// computation, for one and several heads, concatenated and averaged, with
// identity and projected residuals, edge weights, another slope, no bias and
// activations.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(c.in), uint64(c.heads)))
				g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
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
				x := gradcheck.Draw(r, testN*c.in)
				xn := gradcheck.Input(eg, dt, "x", []int{testN, c.in}, x)
				var ew []float64
				var y, attn *gorgonia.Node
				if c.weighted {
					ew = gradcheck.Draw(r, len(testSrc))
					y, err = l.ForwardWeighted(g, xn, gradcheck.Input(eg, dt, "ew", []int{len(ew), 1}, ew))
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
				got := gradcheck.Run(t, nodes...)
				p := params{w: got[1], al: got[2], ar: got[3]}
				i := 4
				if rw != nil {
					p.res, i = got[i], i+1
				}
				if b != nil {
					p.b, i = got[i], i+1
				}
				want, alpha := reference(x, p, ew, c.in, c.heads, c.out, c.slope, c.residual, c.mean, c.ref)
				gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
				if attn != nil {
					if s := attn.Shape(); !s.Eq(tensor.Shape{len(testSrc), c.heads, 1}) {
						t.Errorf("attention shape %v, want (%d, %d, 1)", s, len(testSrc), c.heads)
					}
					gradcheck.Expect(t, "attention", got[i], alpha, layertest.Tol(dt))
				}
			})
		}
	}
}

// TestDropoutModes checks that dropout is the identity in evaluation and
// changes the output in training.
func TestDropoutModes(t *testing.T) {
	t.Parallel()
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
	layertest.DropoutModes(t, eg, gradcheck.Graph(t, testN, testN, testSrc, testDst), 3, mode, plain, dropped)
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
			g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
			model := layertest.LayerModel(g, c.in, c.weighted, 4, func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (layertest.Layer, error) {
				opts := append([]gat.Option{gat.WithHeads(2), gat.WithDtype(dt)}, c.opts...)
				if c.dropout {
					mode := nn.NewMode()
					mode.Next()
					opts = append(opts, gat.WithMode(mode))
				}
				return gat.New(eg, c.in, 2, append(opts, gat.WithSeed(7))...)
			})
			layertest.GradCheck(t, model, layertest.GradConfig{Seed: 9, Kinks: true})
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	layertest.NewErrors(t, "gat: ", gat.New, gorgonia.NewGraph(),
		layertest.Bad("heads", "heads 0, want at least 1", 2, 2, gat.WithHeads(0)),
		layertest.Bad("feat-dropout", "feature dropout", 2, 2, gat.WithFeatDropout(1)),
		layertest.Bad("attn-dropout", "attention dropout", 2, 2, gat.WithAttnDropout(-0.1)),
		layertest.Bad("nan-dropout", "attention dropout", 2, 2, gat.WithAttnDropout(math.NaN())),
		layertest.Bad("slope", "negative slope", 2, 2, gat.WithNegativeSlope(-1)),
		layertest.Bad("slope-nan", "negative slope", 2, 2, gat.WithNegativeSlope(math.NaN())),
		layertest.Bad("slope-inf", "negative slope", 2, 2, gat.WithNegativeSlope(math.Inf(1))),
		layertest.Bad("dropout-without-mode", "WithMode", 2, 2, gat.WithFeatDropout(0.5)),
		layertest.Bad("dtype", "dtype", 2, 2, gat.WithDtype(tensor.Int64)),
		layertest.Bad("name", "empty name", 2, 2, gat.WithName("")),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
	eg := gorgonia.NewGraph()
	l, err := gat.New(eg, 3, 2, gat.WithHeads(2), gat.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.ForwardErrors(t, "gat: ", eg, g, l, 3, "edge weight")
	layertest.ExpectError(t, "more destinations than sources", "gat: ", "first NumDst sources", func() (*gorgonia.Node, error) {
		return l.Forward(gradcheck.Graph(t, 3, 5, []int32{0, 1, 2}, []int32{0, 1, 4}), x)
	})
}

// TestZeroInDegree checks that Forward names how many nodes lack in-edges,
// and that with WithAllowZeroInDegree those nodes get the residual and bias
// alone.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	// Nodes 0 and 3 have no in-edges.
	g := gradcheck.Graph(t, 5, 5, []int32{0, 1, 2, 4, 0}, []int32{1, 2, 1, 2, 4})
	eg := gorgonia.NewGraph()
	xv := gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 10)
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{5, 2}, xv)
	strict, err := gat.New(eg, 2, 1, gat.WithHeads(2), gat.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.Forward(g, x)
	if err == nil || !strings.Contains(err.Error(), "2 of 5 destination nodes have no in-edges (node 0 first)") || !strings.Contains(err.Error(), "WithAllowZeroInDegree") {
		t.Fatalf("Forward error %v; want one naming the 2 nodes and the option", err)
	}

	lax, err := gat.New(eg, 2, 1, gat.WithHeads(2), gat.WithDtype(tensor.Float64), gat.WithResidual(true), gat.WithAllowZeroInDegree(true))
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, _, b := layerParams(t, lax, false, true)
	gradcheck.Set(b, []float64{0.25, -0.5})
	y, err := lax.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	got := gradcheck.Run(t, y)[0]
	for _, v := range []int{0, 3} {
		want := []float64{xv[2*v] + 0.25, xv[2*v+1] - 0.5}
		gradcheck.Expect(t, fmt.Sprintf("row %d", v), got[2*v:2*v+2], want, 1e-15)
	}

	// On a graph without edges every node gets the residual and bias alone.
	y, err = lax.Forward(gradcheck.Graph(t, 5, 5, nil, nil), x)
	if err != nil {
		t.Fatalf("Forward on an edgeless graph: %v", err)
	}
	got = gradcheck.Run(t, y)[0]
	for v := range 5 {
		want := []float64{xv[2*v] + 0.25, xv[2*v+1] - 0.5}
		gradcheck.Expect(t, fmt.Sprintf("edgeless row %d", v), got[2*v:2*v+2], want, 1e-15)
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
	_, _, _, _, bias := layerParams(t, b, true, true)
	layertest.UniqueNames(t, eg, gradcheck.Graph(t, testN, testN, testSrc, testDst), 3, a, b, bias, []float64{1, 1, 1, 1}, 0.5)
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
		return gradcheck.Values(l.Learnables())
	}
	a, c := layertest.Seeded(t, 7, values)
	if !gradcheck.Differ(a[0], c[0], 1e-3) {
		t.Error("seeds 7 and 8 give the same weight")
	}
	if !gradcheck.Differ(a[1], a[2], 1e-3) {
		t.Error("attn_l and attn_r start equal")
	}
	if !gradcheck.Differ(a[0], a[3], 1e-3) {
		t.Error("the weight and the residual projection start equal")
	}
	layertest.Bounded(t, a[0], math.Sqrt2*math.Sqrt(6.0/(4+6)))
}

// TestWithValues checks that GATConv takes its initial values (weights,
// attention vectors, residual and edge terms, bias) from WithValues by
// name, and draws as without it when values has none of the right shape.
func TestWithValues(t *testing.T) {
	layertest.Values(t, func(eg *gorgonia.ExprGraph, values nn.Values) (gorgonia.Nodes, error) {
		l, err := gat.New(eg, 5, 3, gat.WithHeads(2), gat.WithResidual(true), gat.WithEdgeFeatures(4), gat.WithValues(values), gat.WithName("gat1"))
		if err != nil {
			return nil, err
		}
		return l.Learnables(), nil
	})
}
