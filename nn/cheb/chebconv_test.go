package cheb_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/cheb"
)

// fixture is a directed graph (in- and out-degrees differ) with a self-loop,
// parallel edges and node 5 without in-edges.
var fixture = layertest.Fixture{Name: "directed", NumSrc: 6, NumDst: 6,
	Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1, 1, 5}, Dst: []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1, 0, 0}}

// reference computes act([T_0(L~) x, …, T_{k-1}(L~) x] W + b) densely with
// L~ = 2 (I - S)/λ - I, S the in-degree symmetric norm.
func reference(f layertest.Fixture, x, w, b []float64, in, out, k int, lambda float64, act func(float64) float64) []float64 {
	n := f.NumSrc
	var lt mat.Dense
	lt.Scale(-2/lambda, f.SymIn())
	for i := range n {
		lt.Set(i, i, lt.At(i, i)+2/lambda-1)
	}
	terms := []*mat.Dense{mat.NewDense(n, in, x)}
	for i := 1; i < k; i++ {
		var t mat.Dense
		t.Mul(&lt, terms[i-1])
		if i > 1 {
			t.Scale(2, &t)
			t.Sub(&t, terms[i-2])
		}
		terms = append(terms, &t)
	}
	stack := mat.NewDense(n, k*in, nil)
	for i, t := range terms {
		stack.Slice(0, n, i*in, (i+1)*in).(*mat.Dense).Copy(t)
	}
	var y mat.Dense
	y.Mul(stack, mat.NewDense(k*in, out, w))
	res := y.RawMatrix().Data
	for i := range res {
		if b != nil {
			res[i] += b[i%out]
		}
		if act != nil {
			res[i] = act(res[i])
		}
	}
	return res
}

func relu(x float64) float64 { return math.Max(x, 0) }

type goldenCase struct {
	name   string
	k      int
	lambda float64 // 0: the default, 2
	bias   bool
	linear bool // no activation
}

var goldenCases = []goldenCase{
	{name: "k1", k: 1, bias: true},
	{name: "k2", k: 2, bias: true},
	{name: "k3-lambda", k: 3, lambda: 1.5, bias: true},
	{name: "k4-linear", k: 4, lambda: 1.8, bias: true, linear: true},
	{name: "k3-no-bias-linear", k: 3, linear: true},
}

func (c goldenCase) options(dt tensor.Dtype) []cheb.Option {
	o := []cheb.Option{cheb.WithBias(c.bias), cheb.WithDtype(dt)}
	if c.linear {
		o = append(o, cheb.WithActivation(nil))
	}
	return o
}

func (c goldenCase) forward(l *cheb.ChebConv, g *graph.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	if c.lambda == 0 {
		return l.Forward(g, x)
	}
	return l.ForwardLambda(g, x, c.lambda)
}

// TestGolden compares the layer with the dense Chebyshev polynomials.
func TestGolden(t *testing.T) {
	t.Parallel()
	const in, out = 3, 2
	for _, c := range goldenCases {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(c.k), 4))
				eg := gorgonia.NewGraph()
				l, err := cheb.New(eg, in, out, c.k, c.options(dt)...)
				if err != nil {
					t.Fatal(err)
				}
				ps := l.Learnables()
				if len(ps) != 1+layertest.Btoi(c.bias) || !ps[0].Shape().Eq(tensor.Shape{c.k * in, out}) {
					t.Fatalf("learnables %v", ps)
				}
				layertest.Randomize(r, 0.5, ps...)
				x := gradcheck.Draw(r, fixture.NumSrc*in)
				y, err := c.forward(l, fixture.Graph(t), gradcheck.Input(eg, dt, "x", []int{fixture.NumSrc, in}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, append(gorgonia.Nodes{y}, ps...)...)
				var b []float64
				if c.bias {
					b = got[2]
				}
				lambda := c.lambda
				if lambda == 0 {
					lambda = 2
				}
				act := relu
				if c.linear {
					act = nil
				}
				gradcheck.Expect(t, "output", got[0], reference(fixture, x, got[1], b, in, out, c.k, lambda, act), layertest.Tol(dt))
			})
		}
	}
}

// TestGradients checks the gradients with respect to the features and the
// parameters by finite differences (the ReLU cases compare float32 with
// float64 only).
func TestGradients(t *testing.T) {
	t.Parallel()
	g := fixture.Graph(t)
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			model := func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
				r := rand.New(rand.NewPCG(5, 5))
				l, err := cheb.New(eg, 3, 2, c.k, c.options(dt)...)
				if err != nil {
					return nil, nil, err
				}
				layertest.Randomize(r, 0.5, l.Learnables()...)
				x := gradcheck.Input(eg, dt, "x", []int{g.NumSrc(), 3}, gradcheck.Draw(r, g.NumSrc()*3))
				y, err := c.forward(l, g, x)
				return y, append(gorgonia.Nodes{x}, l.Learnables()...), err
			}
			layertest.GradCheck(t, model, layertest.GradConfig{Seed: 23, Kinks: !c.linear})
		})
	}
}

// TestLambdaMax checks the estimate against gonum's symmetric eigensolver
// on symmetric graphs, and the known 2 of a bipartite one (an even cycle).
func TestLambdaMax(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 8))
	var src, dst []int32
	for range 40 {
		u, v := int32(r.IntN(30)), int32(r.IntN(30))
		src, dst = append(src, u, v), append(dst, v, u)
	}
	cycle := layertest.Fixture{NumSrc: 6, NumDst: 6, Src: []int32{0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 0}, Dst: []int32{1, 2, 3, 4, 5, 0, 0, 1, 2, 3, 4, 5}}
	for _, f := range []layertest.Fixture{
		{Name: "random", NumSrc: 30, NumDst: 30, Src: src, Dst: dst},
		{Name: "cycle", NumSrc: 6, NumDst: 6, Src: cycle.Src, Dst: cycle.Dst},
	} {
		got, err := cheb.LambdaMax(f.Graph(t))
		if err != nil {
			t.Fatal(err)
		}
		l := f.SymIn()
		l.Scale(-1, l)
		for i := range f.NumSrc {
			l.Set(i, i, l.At(i, i)+1)
		}
		var eig mat.EigenSym
		if !eig.Factorize(mat.NewSymDense(f.NumSrc, l.RawMatrix().Data), false) {
			t.Fatal("eigen decomposition failed")
		}
		vals := eig.Values(nil)
		want := vals[len(vals)-1]
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: LambdaMax %v, the eigensolver gives %v", f.Name, got, want)
		}
		if f.Name == "cycle" && math.Abs(got-2) > 1e-6 {
			t.Errorf("even cycle: LambdaMax %v, want 2", got)
		}
	}
	if _, err := cheb.LambdaMax(gradcheck.Graph(t, 4, 2, []int32{0}, []int32{1})); err == nil || !strings.Contains(err.Error(), "homogeneous") {
		t.Errorf("block: error %v", err)
	}
	if _, err := cheb.LambdaMax(nil); err == nil {
		t.Error("nil graph: no error")
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	newK2 := func(eg *gorgonia.ExprGraph, in, out int, opts ...cheb.Option) (*cheb.ChebConv, error) {
		return cheb.New(eg, in, out, 2, opts...)
	}
	layertest.NewErrors(t, "cheb: ", newK2, gorgonia.NewGraph(),
		layertest.Bad("lambda", "lambda_max", 2, 2, cheb.WithLambdaMax(0)),
		layertest.Bad("lambda-inf", "lambda_max", 2, 2, cheb.WithLambdaMax(math.Inf(1))),
		layertest.Bad("dtype", "dtype", 2, 2, cheb.WithDtype(tensor.Int)),
		layertest.Bad("name", "empty name", 2, 2, cheb.WithName("")),
	)
	layertest.ExpectError(t, "k", "cheb: ", "at least 1", func() (*cheb.ChebConv, error) { return cheb.New(gorgonia.NewGraph(), 2, 2, 0) })
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixture.Graph(t)
	eg := gorgonia.NewGraph()
	l, err := cheb.New(eg, 3, 2, 2, cheb.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumSrc()
	x := gradcheck.Zeros(eg, tensor.Float32, "x", n, 3)
	forward := func(g *graph.Graph, x *gorgonia.Node) func() (*gorgonia.Node, error) {
		return func() (*gorgonia.Node, error) { return l.Forward(g, x) }
	}
	layertest.ExpectError(t, "nil-graph", "cheb: ", "needs a graph", forward(nil, x))
	layertest.ExpectError(t, "nil-features", "cheb: ", "needs a graph", forward(g, nil))
	layertest.ExpectError(t, "columns", "cheb: ", "want (6, 3)", forward(g, gradcheck.Zeros(eg, tensor.Float32, "wide", n, 4)))
	layertest.ExpectError(t, "dtype", "cheb: ", "dtype", forward(g, gradcheck.Zeros(eg, tensor.Float64, "x64", n, 3)))
	layertest.ExpectError(t, "block", "cheb: ", "homogeneous", forward(gradcheck.Graph(t, 6, 3, []int32{0}, []int32{1}), x))
	layertest.ExpectError(t, "lambda", "cheb: ", "lambda_max", func() (*gorgonia.Node, error) { return l.ForwardLambda(g, x, -1) })
}

func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	var ls [2]*cheb.ChebConv
	for i := range ls {
		l, err := cheb.New(eg, 3, 2, 2, cheb.WithActivation(nil))
		if err != nil {
			t.Fatal(err)
		}
		ls[i] = l
	}
	if ls[0].Learnables()[0].Name() == ls[1].Learnables()[0].Name() {
		t.Errorf("two unnamed layers share the name %q", ls[0].Learnables()[0].Name())
	}
	var _ nn.Layer = ls[0]
}
