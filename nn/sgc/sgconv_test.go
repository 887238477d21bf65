package sgc_test

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
	"github.com/gnngo/gnn/nn/sgc"
)

// fixture is a directed graph (in- and out-degrees differ) with a self-loop
// and parallel edges, every node with an in-edge.
var fixture = layertest.Fixture{Name: "directed", NumSrc: 5, NumDst: 5,
	Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1, 1}, Dst: []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1, 0}}

// positive returns |v| for edge weights, which EdgeWeightNorm needs positive.
func positive(v []float64) []float64 {
	for i := range v {
		v[i] = math.Abs(v[i])
	}
	return v
}

// operator returns the dense propagation matrix: D_in^-1/2 A D_in^-1/2
// (degrees clamped to 1), or with edge weights ew / sqrt(w_out(u) w_in(v)).
func operator(f layertest.Fixture, ew []float64) *mat.Dense {
	if ew == nil {
		return f.SymIn()
	}
	a := f.Adjacency(ew)
	var s mat.Dense
	wout, win := make([]float64, f.NumSrc), make([]float64, f.NumDst)
	for e := range f.Src {
		wout[f.Src[e]] += ew[e]
		win[f.Dst[e]] += ew[e]
	}
	s.Apply(func(v, u int, w float64) float64 { return w / math.Sqrt(wout[u]*win[v]) }, a)
	return &s
}

// reference computes act(S^K x) W + b densely; b may be nil.
func reference(f layertest.Fixture, x, ew, w, b []float64, in, out, k int, norm func(float64) float64) []float64 {
	s := operator(f, ew)
	h := mat.DenseCopyOf(mat.NewDense(f.NumSrc, in, x))
	for range k {
		var next mat.Dense
		next.Mul(s, h)
		h = &next
	}
	if norm != nil {
		h.Apply(func(_, _ int, v float64) float64 { return norm(v) }, h)
	}
	var y mat.Dense
	y.Mul(h, mat.NewDense(in, out, w))
	res := y.RawMatrix().Data
	for i := range res {
		if b != nil {
			res[i] += b[i%out]
		}
	}
	return res
}

func elu(x float64) float64 {
	if x > 0 {
		return x
	}
	return math.Expm1(x)
}

type goldenCase struct {
	name     string
	k        int
	bias     bool
	weighted bool
	cached   bool
	norm     bool
}

var goldenCases = []goldenCase{
	{name: "k1", k: 1, bias: true},
	{name: "k3", k: 3, bias: true},
	{name: "k2-no-bias", k: 2},
	{name: "k2-weighted", k: 2, bias: true, weighted: true},
	{name: "k2-norm", k: 2, bias: true, norm: true},
	{name: "k3-cached", k: 3, bias: true, cached: true},
	{name: "k2-cached-weighted-norm", k: 2, bias: true, cached: true, weighted: true, norm: true},
}

func (c goldenCase) options(dt tensor.Dtype) []sgc.Option {
	o := []sgc.Option{sgc.WithK(c.k), sgc.WithBias(c.bias), sgc.WithCached(c.cached), sgc.WithDtype(dt)}
	if c.norm {
		o = append(o, sgc.WithFeatureNorm(nn.ELU))
	}
	return o
}

// TestGolden compares the layer with the dense formula.
func TestGolden(t *testing.T) {
	t.Parallel()
	const in, out = 3, 2
	for _, c := range goldenCases {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(c.k), 2))
				eg := gorgonia.NewGraph()
				l, err := sgc.New(eg, in, out, c.options(dt)...)
				if err != nil {
					t.Fatal(err)
				}
				ps := l.Learnables()
				if len(ps) != 1+layertest.Btoi(c.bias) {
					t.Fatalf("learnables %v", ps)
				}
				layertest.Randomize(r, 0.5, ps...)
				x := gradcheck.Draw(r, fixture.NumSrc*in)
				xn := gradcheck.Input(eg, dt, "x", []int{fixture.NumSrc, in}, x)
				var ew []float64
				var y *gorgonia.Node
				if c.weighted {
					ew = positive(gradcheck.Draw(r, len(fixture.Src)))
					y, err = l.ForwardWeighted(fixture.Graph(t), xn, gradcheck.Input(eg, dt, "ew", []int{len(ew)}, ew))
				} else {
					y, err = l.Forward(fixture.Graph(t), xn)
				}
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, append(gorgonia.Nodes{y}, ps...)...)
				var b []float64
				if c.bias {
					b = got[2]
				}
				var norm func(float64) float64
				if c.norm {
					norm = elu
				}
				gradcheck.Expect(t, "output", got[0], reference(fixture, x, ew, got[1], b, in, out, c.k, norm), layertest.Tol(dt))
			})
		}
	}
}

// TestGradients checks the gradients with respect to the features, the
// parameters and the edge weights by finite differences; cached layers have
// none with respect to the features.
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			layertest.GradCheck(t, gradModel(fixture.Graph(t), c), layertest.GradConfig{Seed: 21})
		})
	}
}

func gradModel(g *graph.Graph, c goldenCase) layertest.Model {
	const in, out = 3, 2
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(7, 7))
		l, err := sgc.New(eg, in, out, c.options(dt)...)
		if err != nil {
			return nil, nil, err
		}
		layertest.Randomize(r, 0.5, l.Learnables()...)
		x := gradcheck.Input(eg, dt, "x", []int{g.NumSrc(), in}, gradcheck.Draw(r, g.NumSrc()*in))
		wrt := l.Learnables()
		if !c.cached {
			wrt = append(gorgonia.Nodes{x}, wrt...)
		}
		if !c.weighted {
			y, err := l.Forward(g, x)
			return y, wrt, err
		}
		ew := gradcheck.Input(eg, dt, "ew", []int{g.NumEdges(), 1}, positive(gradcheck.Draw(r, g.NumEdges())))
		y, err := l.ForwardWeighted(g, x, ew)
		if !c.cached {
			wrt = append(wrt, ew)
		}
		return y, wrt, err
	}
}

// TestCached checks that a cached layer propagates once: after Forward,
// changing the features' value changes nothing, a second Forward on the
// same inputs reuses the cached node, and a layer without caching follows
// the new value.
func TestCached(t *testing.T) {
	t.Parallel()
	g := fixture.Graph(t)
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(1, 1))
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{5, 3}, gradcheck.Draw(r, 15))
	cached, err := sgc.New(eg, 3, 2, sgc.WithK(2), sgc.WithCached(true), sgc.WithDtype(tensor.Float64), sgc.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := sgc.New(eg, 3, 2, sgc.WithK(2), sgc.WithDtype(tensor.Float64), sgc.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	yc, err := cached.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cached.Forward(g, x); err != nil {
		t.Fatal(err)
	}
	var copies int
	for _, n := range eg.AllNodes() {
		if strings.Contains(n.Name(), ".cached") {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("%d cached feature nodes after two Forwards on the same inputs, want 1", copies)
	}
	yp, err := plain.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	before := gradcheck.Run(t, yc, yp)
	gradcheck.Expect(t, "cached vs plain", before[0], before[1], 1e-12)
	gradcheck.Set(x, gradcheck.Draw(r, 15))
	after := gradcheck.Run(t, yc, yp)
	gradcheck.Expect(t, "cached after a change of x", after[0], before[0], 0)
	if !gradcheck.Differ(after[1], before[1], 1e-6) {
		t.Error("the uncached layer did not follow the new features")
	}
	unset := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(5, 3), gorgonia.WithName("unset"))
	if _, err := cached.Forward(g, unset); err == nil || !strings.Contains(err.Error(), "has no value") {
		t.Errorf("features without a value: error %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	layertest.NewErrors(t, "sgc: ", sgc.New, gorgonia.NewGraph(),
		layertest.Bad("k", "at least 1", 2, 2, sgc.WithK(0)),
		layertest.Bad("dtype", "dtype", 2, 2, sgc.WithDtype(tensor.Int)),
		layertest.Bad("name", "empty name", 2, 2, sgc.WithName("")),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixture.Graph(t)
	eg := gorgonia.NewGraph()
	l, err := sgc.New(eg, 3, 2, sgc.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.ForwardErrors(t, "sgc: ", eg, g, l, 3, "rows")
	block := gradcheck.Graph(t, 5, 3, []int32{0, 1, 2}, []int32{0, 1, 2})
	layertest.ExpectError(t, "block", "sgc: ", "homogeneous", func() (*gorgonia.Node, error) { return l.Forward(block, x) })
}

// TestZeroInDegree checks the error naming the nodes without in-edges, and
// that with WithAllowZeroInDegree they get the bias alone.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, 5, 5, []int32{0, 1, 2, 4, 0}, []int32{1, 2, 1, 2, 4}) // 0 and 3 have none
	eg := gorgonia.NewGraph()
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{5, 2}, gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 10))
	strict, err := sgc.New(eg, 2, 3, sgc.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strict.Forward(g, x); err == nil || !strings.Contains(err.Error(), "2 of 5 destination nodes have no in-edges (node 0 first)") {
		t.Fatalf("Forward error %v", err)
	}
	lax, err := sgc.New(eg, 2, 3, sgc.WithDtype(tensor.Float64), sgc.WithAllowZeroInDegree(true), sgc.WithK(2))
	if err != nil {
		t.Fatal(err)
	}
	gradcheck.Set(lax.Learnables()[1], []float64{0.25, -0.5, 1})
	y, err := lax.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	got := gradcheck.Run(t, y)[0]
	for _, v := range []int{0, 3} {
		gradcheck.Expect(t, fmt.Sprintf("row %d", v), got[v*3:v*3+3], []float64{0.25, -0.5, 1}, 0)
	}
}

func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := sgc.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sgc.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	layertest.UniqueNames(t, eg, fixture.Graph(t), 3, a, b, b.Learnables()[1], []float64{1, 1}, 0.5)
}

// TestSeed checks that initialisation depends on the seed and dtype only,
// Glorot-uniform with gain 1.
func TestSeed(t *testing.T) {
	t.Parallel()
	init := func(seed uint64, dt tensor.Dtype) [][]float64 {
		l, err := sgc.New(gorgonia.NewGraph(), 6, 4, sgc.WithSeed(seed), sgc.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		return gradcheck.Values(l.Learnables()[:1])
	}
	a, c := layertest.Seeded(t, 7, init)
	if !gradcheck.Differ(a[0], c[0], 1e-3) {
		t.Error("seeds 7 and 8 give the same weight")
	}
	layertest.Bounded(t, a[0], math.Sqrt(6.0/10))
}
