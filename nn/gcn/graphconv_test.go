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
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/internal/layertest"
)

// fixture is a test graph: a homogeneous one with a self-loop, parallel
// edges and in-degrees from 1 to 4, and a bipartite one with more sources
// than destinations. Every destination has an in-edge.
type fixture struct {
	name     string
	ns, nd   int
	src, dst []int32
}

var fixtures = []fixture{
	{"homo", 5, 5, []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1}, []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1}},
	{"bipartite", 5, 3, []int32{0, 1, 2, 3, 4, 0, 4, 2}, []int32{0, 0, 1, 1, 2, 2, 0, 1}},
}

func (f fixture) graph(t testing.TB) *graph.Graph {
	return layertest.Graph(t, f.ns, f.nd, f.src, f.dst)
}

// reference computes D_in^-1/2 A^T D_out^-1/2 X W + b (with the powers of
// norm) densely: A is NumSrc x NumDst with A[u][v] the summed weights of the
// edges u -> v, and degrees count edges, clamped to 1. w and b may be nil.
func reference(f fixture, norm gcn.Norm, x, w, b, ew []float64, in, out int) []float64 {
	a := mat.NewDense(f.ns, f.nd, nil)
	dout := make([]float64, f.ns)
	din := make([]float64, f.nd)
	for e := range f.src {
		u, v := int(f.src[e]), int(f.dst[e])
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
	xm := mat.NewDense(f.ns, in, x)
	var at, norm2, h mat.Dense
	at.Mul(a.T(), scale(dout, pl))
	norm2.Mul(scale(din, pr), &at) // D_in^pr A^T D_out^pl
	h.Mul(&norm2, xm)
	if w != nil {
		var hw mat.Dense
		hw.Mul(&h, mat.NewDense(in, out, w))
		h = hw
	}
	res := make([]float64, 0, f.nd*out)
	for v := range f.nd {
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
	for _, dt := range layertest.Dtypes {
		for _, f := range fixtures {
			for _, norm := range norms {
				for _, weighted := range []bool{false, true} {
					for _, d := range dims {
						name := fmt.Sprintf("%v/%s/%v/weighted=%t/in=%d/out=%d", dt, f.name, norm, weighted, d[0], d[1])
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
	g := f.graph(t)
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
		y, err = l.ForwardWeighted(g, xn, layertest.Input(eg, dt, "ew", shape, ew))
	} else {
		y, err = l.Forward(g, xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s := y.Shape(); len(s) != 2 || s[0] != f.nd || s[1] != out {
		t.Fatalf("output shape %v, want (%d, %d)", s, f.nd, out)
	}
	got := layertest.Run(t, y, ps[0], ps[1])
	want := reference(f, norm, x, got[1], got[2], ew, in, out)
	layertest.Expect(t, "output", got[0], want, layertest.Tol(dt))
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
		for _, dt := range layertest.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(5, 5))
				eg := gorgonia.NewGraph()
				l, err := gcn.New(eg, c.in, c.out, append(c.opts, gcn.WithDtype(dt))...)
				if err != nil {
					t.Fatal(err)
				}
				ps := l.Learnables()
				if n := btoi(c.weight) + btoi(c.bias); len(ps) != n {
					t.Fatalf("%d learnables, want %d", len(ps), n)
				}
				if (l.Weight() != nil) != c.weight {
					t.Fatalf("Weight() = %v", l.Weight())
				}
				layertest.Randomize(r, 0.5, ps...)
				x := layertest.Draw(r, f.ns*c.in)
				y, err := l.Forward(f.graph(t), layertest.Input(eg, dt, "x", []int{f.ns, c.in}, x))
				if err != nil {
					t.Fatal(err)
				}
				got := layertest.Run(t, append(gorgonia.Nodes{y}, ps...)...)
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
				layertest.Expect(t, "output", got[0], want, layertest.Tol(dt))
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
					name := fmt.Sprintf("%s/%v/weighted=%t/in=%d/out=%d", f.name, norm, weighted, d[0], d[1])
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						layertest.GradCheck(t, gradModel(f, norm, weighted, d[0], d[1]), layertest.GradConfig{Seed: 11})
					})
				}
			}
		}
	}
}

func gradModel(f fixture, norm gcn.Norm, weighted bool, in, out int) layertest.Model {
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(2, 2))
		g, err := graph.FromCOO(f.ns, f.nd, f.src, f.dst)
		if err != nil {
			return nil, nil, err
		}
		l, err := gcn.New(eg, in, out, gcn.WithNorm(norm), gcn.WithDtype(dt))
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

func TestNewErrors(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	cases := []struct {
		name    string
		eg      *gorgonia.ExprGraph
		in, out int
		opts    []gcn.Option
		want    string
	}{
		{"nil-graph", nil, 2, 2, nil, "nil expression graph"},
		{"zero-in", eg, 0, 2, nil, "must be positive"},
		{"negative-out", eg, 2, -1, nil, "must be positive"},
		{"norm", eg, 2, 2, []gcn.Option{gcn.WithNorm(gcn.Norm(7))}, "unknown norm"},
		{"dtype", eg, 2, 2, []gcn.Option{gcn.WithDtype(tensor.Int)}, "dtype"},
		{"name", eg, 2, 2, []gcn.Option{gcn.WithName("")}, "empty name"},
		{"no-weight", eg, 2, 3, []gcn.Option{gcn.WithWeight(false)}, "in == out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := gcn.New(c.eg, c.in, c.out, c.opts...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want an error containing %q", l, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "gcn: ") {
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
	l, err := gcn.New(eg, 3, 2, gcn.WithName("layer"))
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
		{"columns", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "x4", 5, 4)) }, "want (5, 3)"},
		{"rows", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "x6", 6, 3)) }, "want (5, 3)"},
		{"vector", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float32, "v", 15)) }, "want (5, 3)"},
		{"dtype", func() (*gorgonia.Node, error) { return l.Forward(g, input(tensor.Float64, "x64", 5, 3)) }, "dtype"},
		{"nil-weight", func() (*gorgonia.Node, error) { return l.ForwardWeighted(g, x, nil) }, "nil edge weight"},
		{"weight-rows", func() (*gorgonia.Node, error) {
			return l.ForwardWeighted(g, x, input(tensor.Float32, "ew", 3, 1))
		}, "rows"},
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

// TestZeroInDegree checks that Forward names how many nodes lack in-edges,
// and that with WithAllowZeroInDegree those nodes get the bias alone.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	// Nodes 0 and 3 have no in-edges.
	g := layertest.Graph(t, 5, 5, []int32{0, 1, 2, 4, 0}, []int32{1, 2, 1, 2, 4})
	eg := gorgonia.NewGraph()
	x := layertest.Input(eg, tensor.Float64, "x", []int{5, 2}, layertest.Draw(rand.New(rand.NewPCG(1, 1)), 10))
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
	layertest.Set(bias, []float64{0.25, -0.5, 1})
	y, err := lax.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	// A graph without edges: every row is the bias.
	empty, err := lax.Forward(layertest.Graph(t, 5, 5, nil, nil), x)
	if err != nil {
		t.Fatal(err)
	}
	got := layertest.Run(t, y, empty)
	for _, v := range []int{0, 3} {
		layertest.Expect(t, fmt.Sprintf("row %d", v), got[0][v*3:v*3+3], []float64{0.25, -0.5, 1}, 0)
	}
	for v := range 5 {
		layertest.Expect(t, fmt.Sprintf("edgeless row %d", v), got[1][v*3:v*3+3], []float64{0.25, -0.5, 1}, 0)
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
	seen := map[string]bool{}
	for _, p := range append(a.Learnables(), b.Learnables()...) {
		if seen[p.Name()] {
			t.Errorf("parameter name %q used twice", p.Name())
		}
		seen[p.Name()] = true
	}
	if a.Weight() == b.Weight() {
		t.Fatal("the two layers share a weight node")
	}
	g := fixtures[0].graph(t)
	x := layertest.Input(eg, tensor.Float32, "x", []int{5, 3}, layertest.Draw(rand.New(rand.NewPCG(1, 1)), 15))
	ya, err := a.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	yb, err := b.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	layertest.Set(b.Learnables()[1], []float64{1, 1})
	got := layertest.Run(t, ya, yb)
	if layertest.Mismatch(got[0], got[1], 0.5) < 0 {
		t.Errorf("the two layers give the same output %v: their nodes merged", got[0])
	}
}

// TestSeed checks that the initialisation is a function of the seed and
// dtype only, and that the weight is Glorot-uniform: inside
// ±sqrt(6/(in+out)) (gain 1, as DGL's xavier_uniform_).
func TestSeed(t *testing.T) {
	t.Parallel()
	weight := func(seed uint64, dt tensor.Dtype) []float64 {
		l, err := gcn.New(gorgonia.NewGraph(), 6, 4, gcn.WithSeed(seed), gcn.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		return layertest.Floats(l.Weight().Value())
	}
	a, b, c := weight(7, tensor.Float64), weight(7, tensor.Float64), weight(8, tensor.Float64)
	layertest.Expect(t, "same seed", a, b, 0)
	if layertest.Mismatch(a, c, 1e-3) < 0 {
		t.Error("seeds 7 and 8 give the same weight")
	}
	layertest.Expect(t, "float32 weight", weight(7, tensor.Float32), a, 1e-7)
	bound := math.Sqrt(6.0 / 10)
	for i, v := range a {
		if math.Abs(v) > bound {
			t.Errorf("weight[%d] = %v is outside ±%v", i, v, bound)
		}
	}
}
