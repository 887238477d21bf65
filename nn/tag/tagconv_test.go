package tag_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/tag"
)

// fixture is a directed graph (in- and out-degrees differ) with a self-loop,
// parallel edges and node 5 without in-edges.
var fixture = layertest.Fixture{Name: "directed", NumSrc: 6, NumDst: 6,
	Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1, 1, 5}, Dst: []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1, 0, 0}}

// reference computes act([x, S x, …, S^K x] W + b) densely, with S the
// in-degree symmetric norm or the raw weighted adjacency.
func reference(f layertest.Fixture, x, ew, w, b []float64, in, out, k int, act func(float64) float64) []float64 {
	s := f.SymIn()
	if ew != nil {
		s = f.Adjacency(ew)
	}
	n := f.NumSrc
	h := mat.NewDense(n, in, x)
	stack := mat.NewDense(n, (k+1)*in, nil)
	for hop := 0; hop <= k; hop++ {
		stack.Slice(0, n, hop*in, (hop+1)*in).(*mat.Dense).Copy(h)
		var next mat.Dense
		next.Mul(s, h)
		h = &next
	}
	var y mat.Dense
	y.Mul(stack, mat.NewDense((k+1)*in, out, w))
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
	act      bool
}

var goldenCases = []goldenCase{
	{name: "k0", k: 0, bias: true},
	{name: "k1", k: 1, bias: true},
	{name: "k2", k: 2, bias: true},
	{name: "k3-no-bias", k: 3},
	{name: "k2-weighted", k: 2, bias: true, weighted: true},
	{name: "k2-elu", k: 2, bias: true, act: true},
}

func (c goldenCase) options(dt tensor.Dtype) []tag.Option {
	o := []tag.Option{tag.WithK(c.k), tag.WithBias(c.bias), tag.WithDtype(dt)}
	if c.act {
		o = append(o, tag.WithActivation(nn.ELU))
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
				r := rand.New(rand.NewPCG(uint64(c.k), 3))
				eg := gorgonia.NewGraph()
				l, err := tag.New(eg, in, out, c.options(dt)...)
				if err != nil {
					t.Fatal(err)
				}
				ps := l.Learnables()
				if len(ps) != 1+layertest.Btoi(c.bias) {
					t.Fatalf("learnables %v", ps)
				}
				if s := ps[0].Shape(); !s.Eq(tensor.Shape{(c.k + 1) * in, out}) {
					t.Fatalf("weight shape %v", s)
				}
				layertest.Randomize(r, 0.5, ps...)
				x := gradcheck.Draw(r, fixture.NumSrc*in)
				xn := gradcheck.Input(eg, dt, "x", []int{fixture.NumSrc, in}, x)
				var ew []float64
				var y *gorgonia.Node
				if c.weighted {
					ew = gradcheck.Draw(r, len(fixture.Src))
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
				var act func(float64) float64
				if c.act {
					act = elu
				}
				gradcheck.Expect(t, "output", got[0], reference(fixture, x, ew, got[1], b, in, out, c.k, act), layertest.Tol(dt))
			})
		}
	}
}

// TestGradients checks the gradients with respect to the features, the
// parameters and the edge weights by finite differences.
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := fixture.Graph(t)
			layertest.GradCheck(t, layertest.LayerModel(g, 3, c.weighted, 8, func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (layertest.Layer, error) {
				return tag.New(eg, 3, 2, c.options(dt)...)
			}), layertest.GradConfig{Seed: 22})
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	layertest.NewErrors(t, "tag: ", tag.New, gorgonia.NewGraph(),
		layertest.Bad("k", "at least 0", 2, 2, tag.WithK(-1)),
		layertest.Bad("dtype", "dtype", 2, 2, tag.WithDtype(tensor.Int)),
		layertest.Bad("name", "empty name", 2, 2, tag.WithName("")),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixture.Graph(t)
	eg := gorgonia.NewGraph()
	l, err := tag.New(eg, 3, 2, tag.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.ForwardErrors(t, "tag: ", eg, g, l, 3, "rows")
	block := gradcheck.Graph(t, 6, 3, []int32{0, 1, 2}, []int32{0, 1, 2})
	layertest.ExpectError(t, "block", "tag: ", "homogeneous", func() (*gorgonia.Node, error) { return l.Forward(block, x) })
}

func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := tag.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tag.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	layertest.UniqueNames(t, eg, fixture.Graph(t), 3, a, b, b.Learnables()[1], []float64{1, 1}, 0.5)
}

// TestSeed checks that initialisation depends on the seed and dtype only,
// Glorot-uniform with gain sqrt(2) over fans (K+1)*in and out.
func TestSeed(t *testing.T) {
	t.Parallel()
	init := func(seed uint64, dt tensor.Dtype) [][]float64 {
		l, err := tag.New(gorgonia.NewGraph(), 2, 4, tag.WithSeed(seed), tag.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		return gradcheck.Values(l.Learnables()[:1])
	}
	a, c := layertest.Seeded(t, 7, init)
	if !gradcheck.Differ(a[0], c[0], 1e-3) {
		t.Error("seeds 7 and 8 give the same weight")
	}
	layertest.Bounded(t, a[0], math.Sqrt2*math.Sqrt(6.0/10))
}
