package appnp_test

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
	"github.com/gnngo/gnn/nn/appnp"
)

// fixtures: a graph with a self-loop, parallel edges, an asymmetric
// structure (in- and out-degrees differ) and node 5 without in-edges.
var fixtures = []layertest.Fixture{
	{Name: "directed", NumSrc: 6, NumDst: 6, Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1, 5}, Dst: []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1, 0}},
}

// reference computes K steps of H = (1-α) Â H + α x densely, with Â =
// D_in^-1/2 A D_out^-1/2 (degrees clamped to 1), or the weighted adjacency
// when ew is given.
func reference(f layertest.Fixture, x, ew []float64, cols, k int, alpha float64) []float64 {
	a := f.Adjacency(ew)
	if ew == nil {
		dout, din := f.Degrees()
		var s mat.Dense
		s.Apply(func(v, u int, w float64) float64 {
			return w / math.Sqrt(math.Max(din[v], 1)*math.Max(dout[u], 1))
		}, a)
		a = &s
	}
	x0 := mat.NewDense(f.NumSrc, cols, x)
	h := mat.DenseCopyOf(x0)
	for range k {
		var next mat.Dense
		next.Mul(a, h)
		next.Scale(1-alpha, &next)
		var t mat.Dense
		t.Scale(alpha, x0)
		next.Add(&next, &t)
		h = &next
	}
	return h.RawMatrix().Data
}

// TestGolden compares the layer with the dense formula for several K and α,
// with and without edge weights (given as a vector and as a column).
func TestGolden(t *testing.T) {
	t.Parallel()
	f := fixtures[0]
	for _, dt := range gradcheck.Dtypes {
		for _, c := range []struct {
			k     int
			alpha float64
		}{{1, 0.1}, {3, 0.25}, {10, 0.1}, {2, 0}, {2, 1}} {
			for _, weighted := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/k=%d/alpha=%g/weighted=%t", dt, c.k, c.alpha, weighted), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(c.k), 1))
					l, err := appnp.New(c.k, c.alpha)
					if err != nil {
						t.Fatal(err)
					}
					if len(l.Learnables()) != 0 {
						t.Fatalf("learnables %v", l.Learnables())
					}
					eg := gorgonia.NewGraph()
					x := gradcheck.Draw(r, f.NumSrc*3)
					xn := gradcheck.Input(eg, dt, "x", []int{f.NumSrc, 3}, x)
					var ew []float64
					var y *gorgonia.Node
					if weighted {
						ew = gradcheck.Draw(r, len(f.Src))
						shape := []int{len(ew)}
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
					if s := y.Shape(); !s.Eq(tensor.Shape{f.NumSrc, 3}) {
						t.Fatalf("shape %v", s)
					}
					gradcheck.Expect(t, "output", gradcheck.Run(t, y)[0], reference(f, x, ew, 3, c.k, c.alpha), layertest.Tol(dt))
				})
			}
		}
	}
}

// TestGradients checks the gradients with respect to the features and the
// edge weights by finite differences.
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, weighted := range []bool{false, true} {
		t.Run(fmt.Sprintf("weighted=%t", weighted), func(t *testing.T) {
			t.Parallel()
			g := fixtures[0].Graph(t)
			layertest.GradCheck(t, layertest.LayerModel(g, 3, weighted, 4, func(*gorgonia.ExprGraph, tensor.Dtype) (layertest.Layer, error) {
				return appnp.New(3, 0.2)
			}), layertest.GradConfig{Seed: 5})
		})
	}
}

// TestEdgeDropout checks that edge dropout is the identity in evaluation and
// changes the output in training, and that its gradient is right for a
// fixed step (the mask is a function of seed and step).
func TestEdgeDropout(t *testing.T) {
	t.Parallel()
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	plain, err := appnp.New(3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := appnp.New(3, 0.1, appnp.WithEdgeDropout(0.5), appnp.WithMode(mode), appnp.WithSeed(3))
	if err != nil {
		t.Fatal(err)
	}
	layertest.DropoutModes(t, eg, g, 3, mode, plain, dropped)
	trained := nn.NewMode()
	trained.Next()
	for _, weighted := range []bool{false, true} {
		layertest.GradCheck(t, layertest.LayerModel(g, 3, weighted, 4, func(*gorgonia.ExprGraph, tensor.Dtype) (layertest.Layer, error) {
			return appnp.New(2, 0.2, appnp.WithEdgeDropout(0.3), appnp.WithMode(trained), appnp.WithSeed(9))
		}), layertest.GradConfig{Seed: 6})
	}
}

// TestEdgeless checks a graph without edges: every step gives α x, with and
// without edge dropout.
func TestEdgeless(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, 3, 3, nil, nil)
	eg := gorgonia.NewGraph()
	xv := gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 6)
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{3, 2}, xv)
	for _, opts := range [][]appnp.Option{nil, {appnp.WithEdgeDropout(0.5), appnp.WithMode(nn.NewMode())}} {
		l, err := appnp.New(2, 0.25, opts...)
		if err != nil {
			t.Fatal(err)
		}
		y, err := l.Forward(g, x)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, len(xv))
		for i, v := range xv {
			want[i] = 0.25 * v
		}
		gradcheck.Expect(t, "edgeless", gradcheck.Run(t, y)[0], want, 1e-15)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		k     int
		alpha float64
		opts  []appnp.Option
		want  string
	}{
		{"steps", 0, 0.1, nil, "at least 1"},
		{"alpha", 2, 1.5, nil, "not in [0, 1]"},
		{"alpha-nan", 2, math.NaN(), nil, "not in [0, 1]"},
		{"dropout", 2, 0.1, []appnp.Option{appnp.WithEdgeDropout(1)}, "edge dropout"},
		{"mode", 2, 0.1, []appnp.Option{appnp.WithEdgeDropout(0.5)}, "needs WithMode"},
		{"name", 2, 0.1, []appnp.Option{appnp.WithName("")}, "empty name"},
	} {
		layertest.ExpectError(t, c.name, "appnp: ", c.want, func() (*appnp.APPNPConv, error) { return appnp.New(c.k, c.alpha, c.opts...) })
	}
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	l, err := appnp.New(2, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	x := gradcheck.Zeros(eg, tensor.Float32, "x", g.NumSrc(), 3)
	forward := func(x *gorgonia.Node) func() (*gorgonia.Node, error) {
		return func() (*gorgonia.Node, error) { return l.Forward(g, x) }
	}
	layertest.ExpectError(t, "nil-graph", "appnp: ", "needs a graph", func() (*gorgonia.Node, error) { return l.Forward(nil, x) })
	layertest.ExpectError(t, "nil-features", "appnp: ", "needs a graph", forward(nil))
	layertest.ExpectError(t, "rows", "appnp: ", fmt.Sprintf("want (%d, F)", g.NumSrc()), forward(gradcheck.Zeros(eg, tensor.Float32, "tall", g.NumSrc()+1, 3)))
	layertest.ExpectError(t, "dtype", "appnp: ", "dtype", forward(gorgonia.NewMatrix(eg, tensor.Int, gorgonia.WithShape(g.NumSrc(), 3), gorgonia.WithName("xi"))))
	block := gradcheck.Graph(t, 6, 3, []int32{0}, []int32{1})
	layertest.ExpectError(t, "block", "appnp: ", "homogeneous", func() (*gorgonia.Node, error) { return l.Forward(block, x) })
	layertest.ExpectError(t, "nil-weight", "appnp: ", "nil edge weight", func() (*gorgonia.Node, error) { return l.ForwardWeighted(g, x, nil) })
	layertest.ExpectError(t, "weight-rows", "appnp: ", "rows", func() (*gorgonia.Node, error) {
		return l.ForwardWeighted(g, x, gradcheck.Zeros(eg, tensor.Float32, "ew", g.NumEdges()+1, 1))
	})
}
