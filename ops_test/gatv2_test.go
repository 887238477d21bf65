package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// gatv2Case is an input of GATv2Scores: heads, features and edge feature
// size (0 for none), and the drawn values of zl, zr, a, ef and we.
type gatv2Case struct {
	h, f, d int
	vals    [][]float64
}

func newGATv2Case(g *graph.Graph, h, f, d int, r *rand.Rand) gatv2Case {
	c := gatv2Case{h: h, f: f, d: d}
	for _, s := range c.shapes(g) {
		c.vals = append(c.vals, gradcheck.Draw(r, size(s)))
	}
	return c
}

func (c gatv2Case) shapes(g *graph.Graph) [][]int {
	s := [][]int{{g.NumSrc(), c.h, c.f}, {g.NumDst(), c.h, c.f}, {1, c.h, c.f}}
	if c.d > 0 {
		s = append(s, []int{g.NumEdges(), c.d}, []int{c.d, c.h * c.f})
	}
	return s
}

// build adds the inputs and the op to eg.
func (c gatv2Case) build(eg *gorgonia.ExprGraph, g *graph.Graph, dt tensor.Dtype, slope float64) (*gorgonia.Node, gorgonia.Nodes, error) {
	var in gorgonia.Nodes
	for i, s := range c.shapes(g) {
		in = append(in, gradcheck.Input(eg, dt, fmt.Sprintf("in%d", i), s, c.vals[i]))
	}
	if c.d > 0 {
		out, err := ops.GATv2EdgeScores(g, in[0], in[1], in[2], in[3], in[4], slope)
		return out, in, err
	}
	out, err := ops.GATv2Scores(g, in[0], in[1], in[2], slope)
	return out, in, err
}

// reference computes the scores edge by edge.
func (c gatv2Case) reference(g *graph.Graph, slope float64) []float64 {
	src, dst := g.COO()
	zl, zr, a := c.vals[0], c.vals[1], c.vals[2]
	w := c.h * c.f
	out := make([]float64, g.NumEdges()*c.h)
	for e := range src {
		u, v := int(src[e]), int(dst[e])
		for h := range c.h {
			for f := range c.f {
				j := h*c.f + f
				t := zl[u*w+j] + zr[v*w+j]
				for d := range c.d {
					t += c.vals[3][e*c.d+d] * c.vals[4][d*w+j]
				}
				if t < 0 {
					t *= slope
				}
				out[e*c.h+h] += a[j] * t
			}
		}
	}
	return out
}

// TestGATv2Scores checks the fused scores against a per-edge loop and their
// gradients with respect to every input by finite differences, with and
// without edge features, on a homogeneous and a bipartite graph, through an
// edge softmax and an attention-weighted sum as a GATv2 layer uses them.
// The LeakyReLU has a kink, so float32 gradients are compared with float64
// ones, not with float32 finite differences.
func TestGATv2Scores(t *testing.T) {
	t.Parallel()
	const slope = 0.2
	seed := uint64(1200)
	for gname, g := range withDstOrder(t, gradcheck.Fixtures(t)) {
		for _, d := range []int{0, 2} {
			// (4, 2) and (1, 8) take sddmm's AVX2 kernels in float32.
			for _, hf := range [][2]int{{1, 3}, {2, 2}, {4, 2}, {1, 8}} {
				for _, dt := range gradcheck.Dtypes {
					seed++
					t.Run(fmt.Sprintf("%s/h=%d/f=%d/d=%d/%v", gname, hf[0], hf[1], d, dt), func(t *testing.T) {
						c := newGATv2Case(g, hf[0], hf[1], d, rand.New(rand.NewPCG(seed, 1)))
						out, _, err := c.build(gorgonia.NewGraph(), g, dt, slope)
						if err != nil {
							t.Fatal(err)
						}
						if s := out.Shape(); !s.Eq(tensor.Shape{g.NumEdges(), hf[0], 1}) {
							t.Fatalf("shape %v", s)
						}
						got := gradcheck.Run(t, out)[0]
						if i := gradcheck.Mismatch(got, c.reference(g, slope), tolerance(dt)); i >= 0 {
							t.Errorf("score %d = %v, the per-edge loop gives %v", i, got[i], c.reference(g, slope)[i])
						}
						f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
							c := newGATv2Case(g, hf[0], hf[1], d, r)
							s, in, err := c.build(eg, g, dt, slope)
							if err != nil {
								return nil, nil, err
							}
							if s, err = ops.EdgeSoftmax(g, s, ops.ByDst); err != nil {
								return nil, nil, err
							}
							y, err := ops.UMulESum(g, in[0], s)
							return y, in, err
						}
						gradcheck.Check(t, dt, f, gradcheck.Options{Seed: seed, Stream: 7, Float32Tol: 1e-4, NonSmooth: true})
					})
				}
			}
		}
	}
}

// withDstOrder returns the graphs of gs and each of them with its edges
// renumbered by destination (named name/bydst), on which the backward of
// GATv2Scores writes a record per edge in its pass over the destinations
// and reads them in its pass over the sources (sddmm.GATv2.GradAll).
func withDstOrder(t *testing.T, gs map[string]*graph.Graph) map[string]*graph.Graph {
	t.Helper()
	out := make(map[string]*graph.Graph, 2*len(gs))
	for name, g := range gs {
		byDst, _, err := g.ReorderEdges(graph.ByDst)
		if err != nil {
			t.Fatal(err)
		}
		out[name], out[name+"/bydst"] = g, byDst
	}
	return out
}

// TestGATv2ScoresComposed checks the fused op against the composition DGL
// uses (u_add_v of the projected features, LeakyReLU, product with a and a
// sum over features), values and gradients.
func TestGATv2ScoresComposed(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	const h, f, slope = 2, 3, 0.3
	c := newGATv2Case(g, h, f, 0, rand.New(rand.NewPCG(3, 4)))
	composed := func(eg *gorgonia.ExprGraph) (*gorgonia.Node, gorgonia.Nodes) {
		var in gorgonia.Nodes
		for i, s := range c.shapes(g) {
			in = append(in, gradcheck.Input(eg, tensor.Float64, fmt.Sprintf("in%d", i), s, c.vals[i]))
		}
		s, err := ops.UAddV(g, in[0], in[1])
		if err != nil {
			t.Fatal(err)
		}
		if s, err = gorgonia.LeakyRelu(s, slope); err != nil {
			t.Fatal(err)
		}
		a, err := gorgonia.Reshape(in[2], tensor.Shape{h, f})
		if err != nil {
			t.Fatal(err)
		}
		if s, err = gorgonia.BroadcastHadamardProd(s, a, nil, []byte{0}); err != nil {
			t.Fatal(err)
		}
		if s, err = gorgonia.Sum(s, 2); err != nil {
			t.Fatal(err)
		}
		if s, err = gorgonia.Reshape(s, tensor.Shape{g.NumEdges(), h, 1}); err != nil {
			t.Fatal(err)
		}
		return s, in
	}
	eg := gorgonia.NewGraph()
	want, win := composed(eg)
	wantGrads := gradcheck.Gradients(t, want, win, rand.New(rand.NewPCG(9, 9)))
	eg = gorgonia.NewGraph()
	got, in, err := c.build(eg, g, tensor.Float64, slope)
	if err != nil {
		t.Fatal(err)
	}
	gotGrads := gradcheck.Gradients(t, got, in, rand.New(rand.NewPCG(9, 9)))
	gradcheck.Expect(t, "scores", gradcheck.Run(t, got)[0], gradcheck.Run(t, want)[0], 1e-12)
	for i := range gotGrads {
		gradcheck.Expect(t, fmt.Sprintf("gradient %d", i), gotGrads[i], wantGrads[i], 1e-12)
	}
}

// TestGATv2ScoresDeterministic checks that the scores and gradients have the
// same bits whatever GOMAXPROCS is, on a graph large enough to be split.
func TestGATv2ScoresDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const n, e = 3000, 40000
	src, dst := make([]int32, e), make([]int32, e)
	for i := range src {
		src[i], dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
	}
	random := gradcheck.Graph(t, n, n, src, dst)
	byDst, _, err := random.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*graph.Graph{random, byDst} {
		c := newGATv2Case(g, 2, 4, 3, r)
		run := func() [][]float64 {
			eg := gorgonia.NewGraph()
			out, in, err := c.build(eg, g, tensor.Float32, 0.2)
			if err != nil {
				t.Fatal(err)
			}
			return append(gradcheck.Gradients(t, out, in, rand.New(rand.NewPCG(1, 1))), gradcheck.Run(t, out)[0])
		}
		deterministic(t, run)
	}
}

// TestGATv2ScoresErrors checks the shape, dtype and graph checks.
func TestGATv2ScoresErrors(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["bipartite"]
	eg := gorgonia.NewGraph()
	node := func(dt tensor.Dtype, shape ...int) *gorgonia.Node {
		return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...))
	}
	ns, nd, ne := g.NumSrc(), g.NumDst(), g.NumEdges()
	f32 := tensor.Float32
	zl, zr, a := node(f32, ns, 2, 3), node(f32, nd, 2, 3), node(f32, 1, 2, 3)
	ef, we := node(f32, ne, 4), node(f32, 4, 6)
	for _, c := range []struct {
		name              string
		zl, zr, a, ef, we *gorgonia.Node
		slope             float64
		want              string
	}{
		{"zl rows", node(f32, ns+1, 2, 3), zr, a, nil, nil, 0.2, "rows"},
		{"zr rows", zl, node(f32, nd+1, 2, 3), a, nil, nil, 0.2, "rows"},
		{"zl rank", node(f32, ns, 6), zr, a, nil, nil, 0.2, "want (NumSrc, heads, features)"},
		{"features", zl, node(f32, nd, 3, 2), a, nil, nil, 0.2, "features"},
		{"attention", zl, zr, node(f32, 2, 3), nil, nil, 0.2, "want (1, 2, 3)"},
		{"nil attention", zl, zr, nil, nil, nil, 0.2, "nil"},
		{"dtype", zl, node(tensor.Float64, nd, 2, 3), a, nil, nil, 0.2, "dtype"},
		{"slope", zl, zr, a, nil, nil, math.Inf(1), "slope"},
		{"edge rows", zl, zr, a, node(f32, ne+1, 4), we, 0.2, "rows"},
		{"edge rank", zl, zr, a, node(f32, ne, 2, 2), we, 0.2, "want (NumEdges, D)"},
		{"projection", zl, zr, a, ef, node(f32, 4, 5), 0.2, "want (4, 6)"},
		{"edge dtype", zl, zr, a, ef, node(tensor.Float64, 4, 6), 0.2, "dtype"},
		{"nil projection", zl, zr, a, ef, nil, 0.2, "needs edge features"},
	} {
		var err error
		if c.ef == nil && c.we == nil {
			_, err = ops.GATv2Scores(g, c.zl, c.zr, c.a, c.slope)
		} else {
			_, err = ops.GATv2EdgeScores(g, c.zl, c.zr, c.a, c.ef, c.we, c.slope)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "ops: ") {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := ops.GATv2Scores(nil, zl, zr, a, 0.2); err == nil {
		t.Error("nil graph: no error")
	}
	empty := gradcheck.Graph(t, ns, nd, nil, nil)
	if _, err := ops.GATv2Scores(empty, zl, zr, a, 0.2); err == nil || !strings.Contains(err.Error(), "no edges") {
		t.Errorf("edgeless graph: error %v", err)
	}
}

// deterministic runs run with GOMAXPROCS 1, 2 and 7 and fails unless every
// result has the same bits. It changes a process-wide setting, so tests
// that call it do not run in parallel.
func deterministic(t *testing.T, run func() [][]float64) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	want := run()
	for _, procs := range []int{2, 7} {
		runtime.GOMAXPROCS(procs)
		got := run()
		for i := range want {
			gradcheck.Expect(t, fmt.Sprintf("GOMAXPROCS=%d, result %d", procs, i), got[i], want[i], 0)
		}
	}
}

// TestGATv2Allocation checks that GATv2Scores, forward and backward, with
// and without edge features, allocates nothing proportional to
// edges x heads x features (what DGL's GATv2Conv keeps): on a graph where
// E x H x F floats are 51 MB, a training step of the scores must allocate
// under half of that (its output and their gradient are E x H each).
func TestGATv2Allocation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200k-edge graph")
	}
	const n, e, h, f, d = 2000, 200_000, 8, 8, 4
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.CSR()
	g.CSC()
	edgeBytes := uint64(e * h * f * 4)
	for _, dim := range []int{0, d} {
		c := gatv2Case{h: h, f: f, d: dim}
		for _, s := range c.shapes(g) {
			c.vals = append(c.vals, make([]float64, size(s)))
		}
		eg := gorgonia.NewGraph()
		out, in, err := c.build(eg, g, tensor.Float32, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		cost, err := gorgonia.Sum(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(cost, in...); err != nil {
			t.Fatal(err)
		}
		got, _ := stepBytes(t, eg)
		t.Logf("edge features %d: %d bytes per step (E x H x F x 4 = %d)", dim, got, edgeBytes)
		if got > edgeBytes/2 {
			t.Errorf("edge features %d: a training step allocated %d bytes; E x H x F x 4 is %d", dim, got, edgeBytes)
		}
	}
}
