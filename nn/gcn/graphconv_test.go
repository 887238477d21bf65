package gcn_test

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
	"github.com/gnngo/gnn/nn/gcn"
)

type fixture = layertest.Fixture

// fixtures are a homogeneous graph with a self-loop, parallel edges and
// in-degrees from 1 to 4, and a bipartite one with more sources than
// destinations. Every destination has an in-edge.
var fixtures = []fixture{
	{Name: "homo", NumSrc: 5, NumDst: 5, Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1}, Dst: []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1}},
	{Name: "bipartite", NumSrc: 5, NumDst: 3, Src: []int32{0, 1, 2, 3, 4, 0, 4, 2}, Dst: []int32{0, 0, 1, 1, 2, 2, 0, 1}},
}

// reference computes D_in^-1/2 A^T D_out^-1/2 X W + b (with the powers of
// norm) densely: A is NumSrc x NumDst with A[u][v] the summed weights of the
// edges u -> v, and degrees count edges, clamped to 1. w and b may be nil.
func reference(f fixture, norm gcn.Norm, x, w, b, ew []float64, in, out int) []float64 {
	a := mat.NewDense(f.NumSrc, f.NumDst, nil)
	dout := make([]float64, f.NumSrc)
	din := make([]float64, f.NumDst)
	for e := range f.Src {
		u, v := int(f.Src[e]), int(f.Dst[e])
		we := 1.0
		if ew != nil {
			we = ew[e]
		}
		a.Set(u, v, a.At(u, v)+we)
		dout[u]++
		din[v]++
	}
	pl, pr := 0.0, 0.0
	switch norm {
	case gcn.Both:
		pl, pr = -0.5, -0.5
	case gcn.Left:
		pl = -1
	case gcn.Right:
		pr = -1
	}
	scale := func(d []float64, p float64) *mat.DiagDense {
		s := make([]float64, len(d))
		for i, x := range d {
			s[i] = math.Pow(math.Max(x, 1), p)
		}
		return mat.NewDiagDense(len(s), s)
	}
	xm := mat.NewDense(f.NumSrc, in, x)
	var at, norm2, h mat.Dense
	at.Mul(a.T(), scale(dout, pl))
	norm2.Mul(scale(din, pr), &at) // D_in^pr A^T D_out^pl
	h.Mul(&norm2, xm)
	if w != nil {
		var hw mat.Dense
		hw.Mul(&h, mat.NewDense(in, out, w))
		h = hw
	}
	res := make([]float64, 0, f.NumDst*out)
	for v := range f.NumDst {
		for j := range out {
			y := h.At(v, j)
			if b != nil {
				y += b[j]
			}
			res = append(res, y)
		}
	}
	return res
}

var norms = []gcn.Norm{gcn.Both, gcn.Right, gcn.Left, gcn.None}

// TestGolden compares the layer with the dense formula for every norm, with
// and without edge weights (as a vector and as a column), on a homogeneous
// and a bipartite graph, for in > out (W applied before the aggregation),
// in < out and in == out.
func TestGolden(t *testing.T) {
	t.Parallel()
	dims := [][2]int{{4, 2}, {2, 3}, {3, 3}}
	for _, dt := range gradcheck.Dtypes {
		for _, f := range fixtures {
			for _, norm := range norms {
				for _, weighted := range []bool{false, true} {
					for _, d := range dims {
						name := fmt.Sprintf("%v/%s/%v/weighted=%t/in=%d/out=%d", dt, f.Name, norm, weighted, d[0], d[1])
						t.Run(name, func(t *testing.T) {
							goldenCase(t, dt, f, norm, weighted, d[0], d[1])
						})
					}
				}
			}
		}
	}
}

func goldenCase(t *testing.T, dt tensor.Dtype, f fixture, norm gcn.Norm, weighted bool, in, out int) {
	r := rand.New(rand.NewPCG(uint64(in*10+out), uint64(norm)))
	g := f.Graph(t)
	eg := gorgonia.NewGraph()
	l, err := gcn.New(eg, in, out, gcn.WithNorm(norm), gcn.WithDtype(dt), gcn.WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Learnables()
	if len(ps) != 2 || ps[0] != l.Weight() {
		t.Fatalf("Learnables() = %v, want weight and bias", ps)
	}
	layertest.Randomize(r, 0.5, ps[1]) // a non-zero bias
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
		y, err = l.ForwardWeighted(g, xn, gradcheck.Input(eg, dt, "ew", shape, ew))
	} else {
		y, err = l.Forward(g, xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); len(s) != 2 || s[0] != f.NumDst || s[1] != out {
		t.Fatalf("output shape %v, want (%d, %d)", s, f.NumDst, out)
	}
	got := gradcheck.Run(t, y, ps[0], ps[1])
	want := reference(f, norm, x, got[1], got[2], ew, in, out)
	gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
}

// TestGoldenOptions covers a layer without bias, one without weight, and an
// activation.
func TestGoldenOptions(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	cases := []struct {
		name    string
		in, out int
		opts    []gcn.Option
		post    func(float64) float64
		weight  bool
		bias    bool
	}{
		{"no-bias", 3, 2, []gcn.Option{gcn.WithBias(false)}, nil, true, false},
		{"no-weight", 3, 3, []gcn.Option{gcn.WithWeight(false)}, nil, false, true},
		{"no-weight-no-bias", 3, 3, []gcn.Option{gcn.WithWeight(false), gcn.WithBias(false)}, nil, false, false},
		{"tanh", 3, 2, []gcn.Option{gcn.WithActivation(gorgonia.Tanh)}, math.Tanh, true, true},
	}
	for _, c := range cases {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(5, 5))
				eg := gorgonia.NewGraph()
				l, err := gcn.New(eg, c.in, c.out, append(c.opts, gcn.WithDtype(dt))...)
				if err != nil {
					t.Fatal(err)
				}
				ps := l.Learnables()
				if n := layertest.Btoi(c.weight) + layertest.Btoi(c.bias); len(ps) != n {
					t.Fatalf("%d learnables, want %d", len(ps), n)
				}
				if (l.Weight() != nil) != c.weight {
					t.Fatalf("Weight() = %v", l.Weight())
				}
				layertest.Randomize(r, 0.5, ps...)
				x := gradcheck.Draw(r, f.NumSrc*c.in)
				y, err := l.Forward(f.Graph(t), gradcheck.Input(eg, dt, "x", []int{f.NumSrc, c.in}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, append(gorgonia.Nodes{y}, ps...)...)
				var w, b []float64
				if c.weight {
					w = got[1]
				}
				if c.bias {
					b = got[len(got)-1]
				}
				want := reference(f, gcn.Both, x, w, b, nil, c.in, c.out)
				if c.post != nil {
					for i := range want {
						want[i] = c.post(want[i])
					}
				}
				gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
			})
		}
	}
}

// TestGradients checks the gradients of the whole layer with respect to the
// features, the edge weights and every parameter, for every norm, on both
// sides of the multiply-first switch.
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures {
		for _, norm := range norms {
			for _, weighted := range []bool{false, true} {
				for _, d := range [][2]int{{4, 2}, {2, 3}} {
					name := fmt.Sprintf("%s/%v/weighted=%t/in=%d/out=%d", f.Name, norm, weighted, d[0], d[1])
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						layertest.GradCheck(t, gradModel(f.Graph(t), norm, weighted, d[0], d[1]), layertest.GradConfig{Seed: 11})
					})
				}
			}
		}
	}
}

func gradModel(g *graph.Graph, norm gcn.Norm, weighted bool, in, out int) layertest.Model {
	return layertest.LayerModel(g, in, weighted, 2, func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (layertest.Layer, error) {
		return gcn.New(eg, in, out, gcn.WithNorm(norm), gcn.WithDtype(dt))
	})
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	layertest.NewErrors(t, "gcn: ", gcn.New, gorgonia.NewGraph(),
		layertest.Bad("norm", "unknown norm", 2, 2, gcn.WithNorm(gcn.Norm(7))),
		layertest.Bad("dtype", "dtype", 2, 2, gcn.WithDtype(tensor.Int)),
		layertest.Bad("name", "empty name", 2, 2, gcn.WithName("")),
		layertest.Bad("no-weight", "in == out", 2, 3, gcn.WithWeight(false)),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	l, err := gcn.New(eg, 3, 2, gcn.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	layertest.ForwardErrors(t, "gcn: ", eg, g, l, 3, "rows")
	layertest.ExpectError(t, "vector", "gcn: ", "want (5, 3)", func() (*gorgonia.Node, error) {
		return l.Forward(g, gradcheck.Zeros(eg, tensor.Float32, "v", 15))
	})
}

// TestZeroInDegree checks that Forward names how many nodes lack in-edges,
// and that with WithAllowZeroInDegree those nodes get the bias alone.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	// Nodes 0 and 3 have no in-edges.
	g := gradcheck.Graph(t, 5, 5, []int32{0, 1, 2, 4, 0}, []int32{1, 2, 1, 2, 4})
	eg := gorgonia.NewGraph()
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{5, 2}, gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 10))
	strict, err := gcn.New(eg, 2, 3, gcn.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.Forward(g, x)
	if err == nil || !strings.Contains(err.Error(), "2 of 5 destination nodes have no in-edges (node 0 first)") || !strings.Contains(err.Error(), "WithAllowZeroInDegree") {
		t.Fatalf("Forward error %v; want one naming the 2 nodes and the option", err)
	}

	lax, err := gcn.New(eg, 2, 3, gcn.WithDtype(tensor.Float64), gcn.WithAllowZeroInDegree(true))
	if err != nil {
		t.Fatal(err)
	}
	bias := lax.Learnables()[1]
	gradcheck.Set(bias, []float64{0.25, -0.5, 1})
	y, err := lax.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	// A graph without edges: every row is the bias.
	empty, err := lax.Forward(gradcheck.Graph(t, 5, 5, nil, nil), x)
	if err != nil {
		t.Fatal(err)
	}
	got := gradcheck.Run(t, y, empty)
	for _, v := range []int{0, 3} {
		gradcheck.Expect(t, fmt.Sprintf("row %d", v), got[0][v*3:v*3+3], []float64{0.25, -0.5, 1}, 0)
	}
	for v := range 5 {
		gradcheck.Expect(t, fmt.Sprintf("edgeless row %d", v), got[1][v*3:v*3+3], []float64{0.25, -0.5, 1}, 0)
	}
}

// TestUniqueNames builds two unnamed layers of the same shape and seed in one
// graph: their parameters must not merge, so their outputs differ once one
// of them is changed.
func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := gcn.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := gcn.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	layertest.UniqueNames(t, eg, fixtures[0].Graph(t), 3, a, b, b.Learnables()[1], []float64{1, 1}, 0.5)
}

// TestSeed checks that the initialisation is a function of the seed and
// dtype only, and that the weight is Glorot-uniform: inside
// ±sqrt(6/(in+out)) (gain 1, as DGL's xavier_uniform_).
func TestSeed(t *testing.T) {
	t.Parallel()
	weight := func(seed uint64, dt tensor.Dtype) [][]float64 {
		l, err := gcn.New(gorgonia.NewGraph(), 6, 4, gcn.WithSeed(seed), gcn.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		return gradcheck.Values(gorgonia.Nodes{l.Weight()})
	}
	a, c := layertest.Seeded(t, 7, weight)
	if !gradcheck.Differ(a[0], c[0], 1e-3) {
		t.Error("seeds 7 and 8 give the same weight")
	}
	layertest.Bounded(t, a[0], math.Sqrt(6.0/10))
}

// TestWithValues checks that GraphConv takes its initial values from
// WithValues by name, and draws as without it when values has none of the
// right shape.
func TestWithValues(t *testing.T) {
	layertest.Values(t, func(eg *gorgonia.ExprGraph, values nn.Values) (gorgonia.Nodes, error) {
		l, err := gcn.New(eg, 5, 3, gcn.WithValues(values), gcn.WithName("gcn1"))
		if err != nil {
			return nil, err
		}
		return l.Learnables(), nil
	})
}
