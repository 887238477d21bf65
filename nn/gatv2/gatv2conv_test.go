package gatv2_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gatv2"
)

// fixtures are a homogeneous graph with self-loops, parallel edges and
// in-degrees from 1 to 4, and a block whose 3 destinations are its first 3
// of 5 sources. Every destination has an in-edge.
var fixtures = []layertest.Fixture{
	{Name: "homo", NumSrc: 5, NumDst: 5, Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1}, Dst: []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1}},
	{Name: "block", NumSrc: 5, NumDst: 3, Src: []int32{0, 1, 2, 3, 4, 0, 4, 2}, Dst: []int32{0, 0, 1, 1, 2, 2, 0, 1}},
}

type goldenCase struct {
	name           string
	in, heads, out int
	slope          float64
	residual, mean bool
	bias, share    bool
	weighted       bool
	edgeDim        int
	act            nn.Activation
	ref            func(float64) float64
	resParam       bool
}

var goldenCases = []goldenCase{
	{name: "one-head", in: 3, heads: 1, out: 2, slope: 0.2, bias: true},
	{name: "concat", in: 3, heads: 2, out: 2, slope: 0.2, bias: true},
	{name: "shared", in: 3, heads: 2, out: 2, slope: 0.2, bias: true, share: true},
	{name: "residual-projection", in: 3, heads: 2, out: 2, slope: 0.2, residual: true, bias: true, resParam: true},
	{name: "residual-identity-no-bias", in: 4, heads: 2, out: 2, slope: 0.2, residual: true},
	{name: "mean-residual-projection", in: 3, heads: 3, out: 2, slope: 0.1, residual: true, mean: true, bias: true, resParam: true},
	{name: "weighted", in: 3, heads: 2, out: 3, slope: 0.2, bias: true, weighted: true},
	{name: "edges", in: 3, heads: 2, out: 2, slope: 0.2, bias: true, edgeDim: 3},
	{name: "edges-shared-mean-elu", in: 2, heads: 2, out: 3, slope: 0.3, bias: true, share: true, edgeDim: 1, mean: true, act: nn.ELU, ref: elu},
}

// elu is nn.ELU's formula. (gorgonia.Tanh's backward overwrites its
// output, which the gradient check catches.)
func elu(x float64) float64 {
	if x > 0 {
		return x
	}
	return math.Expm1(x)
}

func (c goldenCase) options(dt tensor.Dtype) []gatv2.Option {
	return []gatv2.Option{
		gatv2.WithHeads(c.heads), gatv2.WithNegativeSlope(c.slope), gatv2.WithResidual(c.residual),
		gatv2.WithMeanHeads(c.mean), gatv2.WithBias(c.bias), gatv2.WithShareWeights(c.share),
		gatv2.WithEdgeFeatures(c.edgeDim), gatv2.WithActivation(c.act), gatv2.WithDtype(dt),
	}
}

// split names a layer's parameter values by role, checking their count.
func (c goldenCase) split(t *testing.T, vals [][]float64) params {
	t.Helper()
	var p params
	take := func(on bool) []float64 {
		if !on {
			return nil
		}
		if len(vals) == 0 {
			t.Fatal("too few learnables")
		}
		v := vals[0]
		vals = vals[1:]
		return v
	}
	p.ws, p.bs = take(true), take(c.bias)
	p.wd, p.bd = take(!c.share), take(!c.share && c.bias)
	p.attn = take(true)
	p.rw, p.rb = take(c.resParam), take(c.resParam && c.bias)
	p.we = take(c.edgeDim > 0)
	if len(vals) != 0 {
		t.Fatalf("%d learnables left over", len(vals))
	}
	return p
}

// TestGolden compares the output and the attention with the edge-by-edge
// computation for every case on both fixtures.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		for _, fx := range fixtures {
			if c.residual && fx.NumSrc != fx.NumDst && !c.resParam && c.in != c.heads*c.out {
				continue
			}
			for _, dt := range gradcheck.Dtypes {
				t.Run(fmt.Sprintf("%s/%s/%v", c.name, fx.Name, dt), func(t *testing.T) { golden(t, c, fx, dt) })
			}
		}
	}
}

func golden(t *testing.T, c goldenCase, fx layertest.Fixture, dt tensor.Dtype) {
	r := rand.New(rand.NewPCG(uint64(c.in), uint64(c.heads*10+c.edgeDim)))
	g := fx.Graph(t)
	eg := gorgonia.NewGraph()
	l, err := gatv2.New(eg, c.in, c.out, c.options(dt)...)
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Learnables()
	layertest.Randomize(r, 0.5, ps...)
	x := gradcheck.Draw(r, fx.NumSrc*c.in)
	xn := gradcheck.Input(eg, dt, "x", []int{fx.NumSrc, c.in}, x)
	var ef, ew []float64
	var y, attn *gorgonia.Node
	switch {
	case c.weighted:
		ew = gradcheck.Draw(r, len(fx.Src))
		y, err = l.ForwardWeighted(g, xn, gradcheck.Input(eg, dt, "ew", []int{len(ew), 1}, ew))
	case c.edgeDim > 0:
		ef = gradcheck.Draw(r, len(fx.Src)*c.edgeDim)
		y, attn, err = l.ForwardEdges(g, xn, gradcheck.Input(eg, dt, "ef", []int{len(fx.Src), c.edgeDim}, ef))
	default:
		y, attn, err = l.ForwardWithAttention(g, xn)
	}
	if err != nil {
		t.Fatal(err)
	}
	width := c.heads * c.out
	if c.mean {
		width = c.out
	}
	if s := y.Shape(); !s.Eq(tensor.Shape{fx.NumDst, width}) {
		t.Fatalf("output shape %v, want (%d, %d)", s, fx.NumDst, width)
	}
	nodes := append(gorgonia.Nodes{y}, ps...)
	if attn != nil {
		nodes = append(nodes, attn)
	}
	got := gradcheck.Run(t, nodes...)
	vals := got[1 : 1+len(ps)]
	p := c.split(t, vals)
	want, alpha := reference(fx, x, p, ef, ew, c.edgeDim, spec{in: c.in, heads: c.heads, f: c.out, slope: c.slope, residual: c.residual, mean: c.mean, act: c.ref})
	gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
	if attn != nil {
		gradcheck.Expect(t, "attention", got[len(got)-1], alpha, layertest.Tol(dt))
	}
}

// TestGradients checks the gradients of the whole layer with respect to the
// features, every parameter, and the edge weights or edge features, by
// finite differences in float64 (the LeakyReLU has a kink, so float32 is
// compared with float64).
func TestGradients(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		for _, fx := range fixtures {
			if c.residual && !c.resParam && fx.NumSrc != fx.NumDst {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", c.name, fx.Name), func(t *testing.T) {
				t.Parallel()
				layertest.GradCheck(t, gradModel(fx.Graph(t), c), layertest.GradConfig{Seed: 13, Kinks: true})
			})
		}
	}
}

func gradModel(g *graph.Graph, c goldenCase) layertest.Model {
	build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gatv2.GATv2Conv, error) {
		return gatv2.New(eg, c.in, c.out, c.options(dt)...)
	}
	if c.edgeDim == 0 {
		return layertest.LayerModel(g, c.in, c.weighted, 3, func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (layertest.Layer, error) {
			return build(eg, dt)
		})
	}
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(3, 3))
		l, err := build(eg, dt)
		if err != nil {
			return nil, nil, err
		}
		layertest.Randomize(r, 0.5, l.Learnables()...)
		x := gradcheck.Input(eg, dt, "x", []int{g.NumSrc(), c.in}, gradcheck.Draw(r, g.NumSrc()*c.in))
		ef := gradcheck.Input(eg, dt, "ef", []int{g.NumEdges(), c.edgeDim}, gradcheck.Draw(r, g.NumEdges()*c.edgeDim))
		y, _, err := l.ForwardEdges(g, x, ef)
		return y, append(append(gorgonia.Nodes{x}, l.Learnables()...), ef), err
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	layertest.NewErrors(t, "gatv2: ", gatv2.New, gorgonia.NewGraph(),
		layertest.Bad("heads", "heads 0, want at least 1", 2, 2, gatv2.WithHeads(0)),
		layertest.Bad("feat-dropout", "feature dropout", 2, 2, gatv2.WithFeatDropout(1)),
		layertest.Bad("attn-dropout", "attention dropout", 2, 2, gatv2.WithAttnDropout(-0.1)),
		layertest.Bad("slope", "negative slope", 2, 2, gatv2.WithNegativeSlope(-1)),
		layertest.Bad("slope-nan", "negative slope", 2, 2, gatv2.WithNegativeSlope(math.NaN())),
		layertest.Bad("edge-dim", "edge feature size", 2, 2, gatv2.WithEdgeFeatures(-1)),
		layertest.Bad("no-mode", "needs WithMode", 2, 2, gatv2.WithFeatDropout(0.5)),
		layertest.Bad("dtype", "dtype", 2, 2, gatv2.WithDtype(tensor.Int)),
		layertest.Bad("name", "empty name", 2, 2, gatv2.WithName("")),
	)
}

func TestForwardErrors(t *testing.T) {
	t.Parallel()
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	l, err := gatv2.New(eg, 3, 2, gatv2.WithName("layer"))
	if err != nil {
		t.Fatal(err)
	}
	x := layertest.ForwardErrors(t, "gatv2: ", eg, g, l, 3, "rows")
	edged, err := gatv2.New(eg, 3, 2, gatv2.WithEdgeFeatures(2))
	if err != nil {
		t.Fatal(err)
	}
	ne := g.NumEdges()
	edges := func(l *gatv2.GATv2Conv, g *graph.Graph, ef *gorgonia.Node) func() (*gorgonia.Node, error) {
		return func() (*gorgonia.Node, error) { y, _, err := l.ForwardEdges(g, x, ef); return y, err }
	}
	ef := gradcheck.Zeros(eg, tensor.Float32, "ef", ne, 2)
	layertest.ExpectError(t, "edges-missing", "gatv2: ", "use ForwardEdges", func() (*gorgonia.Node, error) { return edged.Forward(g, x) })
	layertest.ExpectError(t, "edges-unwanted", "gatv2: ", "without WithEdgeFeatures", edges(l, g, ef))
	layertest.ExpectError(t, "edges-nil", "gatv2: ", "nil edge features", edges(edged, g, nil))
	layertest.ExpectError(t, "edges-shape", "gatv2: ", fmt.Sprintf("want (%d, 2)", ne), edges(edged, g, gradcheck.Zeros(eg, tensor.Float32, "ef3", ne, 3)))
	layertest.ExpectError(t, "edges-dtype", "gatv2: ", "dtype", edges(edged, g, gradcheck.Zeros(eg, tensor.Float64, "ef64", ne, 2)))
	wide := gradcheck.Graph(t, 5, 6, []int32{0}, []int32{5})
	layertest.ExpectError(t, "more-destinations", "gatv2: ", "first NumDst sources", func() (*gorgonia.Node, error) { return l.Forward(wide, x) })
}

// TestZeroInDegree checks that Forward names the nodes without in-edges,
// that with WithAllowZeroInDegree they get the residual alone, also on a
// graph without edges.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, 5, 5, []int32{0, 1, 2, 4, 0}, []int32{1, 2, 1, 2, 4}) // 0 and 3 have none
	eg := gorgonia.NewGraph()
	xv := gradcheck.Draw(rand.New(rand.NewPCG(1, 1)), 10)
	x := gradcheck.Input(eg, tensor.Float64, "x", []int{5, 2}, xv)
	strict, err := gatv2.New(eg, 2, 1, gatv2.WithHeads(2), gatv2.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	_, err = strict.Forward(g, x)
	if err == nil || !strings.Contains(err.Error(), "2 of 5 destination nodes have no in-edges (node 0 first)") {
		t.Fatalf("Forward error %v; want one naming the 2 nodes", err)
	}
	lax, err := gatv2.New(eg, 2, 1, gatv2.WithHeads(2), gatv2.WithDtype(tensor.Float64), gatv2.WithAllowZeroInDegree(true), gatv2.WithResidual(true))
	if err != nil {
		t.Fatal(err)
	}
	layertest.Randomize(rand.New(rand.NewPCG(2, 2)), 0.5, lax.Learnables()...)
	y, err := lax.Forward(g, x)
	if err != nil {
		t.Fatal(err)
	}
	got := gradcheck.Run(t, y)[0]
	for _, v := range []int{0, 3} {
		gradcheck.Expect(t, fmt.Sprintf("row %d", v), got[v*2:v*2+2], xv[v*2:v*2+2], 0)
	}
	// Without edges, Forward gives the residual alone (nn's empty-graph
	// table checks the values and gradients); the per-edge entry points say
	// there are no edges.
	none := gradcheck.Graph(t, 5, 5, nil, nil)
	y, err = lax.Forward(none, x)
	if err != nil {
		t.Fatalf("edgeless graph: %v", err)
	}
	gradcheck.Expect(t, "edgeless", gradcheck.Run(t, y)[0], xv, 0)
	if _, _, err := lax.ForwardWithAttention(none, x); err == nil || !strings.Contains(err.Error(), "no attention") {
		t.Errorf("edgeless graph, ForwardWithAttention: error %v", err)
	}
	if _, err := lax.ForwardWeighted(none, x, gradcheck.Zeros(eg, tensor.Float64, "ew3", 3, 1)); err == nil || !strings.Contains(err.Error(), "no edges") {
		t.Errorf("edgeless graph, 3 edge weights: error %v", err)
	}
}

func TestDropout(t *testing.T) {
	t.Parallel()
	g := fixtures[0].Graph(t)
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	opts := []gatv2.Option{gatv2.WithHeads(2), gatv2.WithDtype(tensor.Float64), gatv2.WithSeed(4), gatv2.WithMode(mode)}
	plain, err := gatv2.New(eg, 3, 2, opts...)
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := gatv2.New(eg, 3, 2, append(opts, gatv2.WithFeatDropout(0.4), gatv2.WithAttnDropout(0.4))...)
	if err != nil {
		t.Fatal(err)
	}
	layertest.DropoutModes(t, eg, g, 3, mode, plain, dropped)
}

func TestUniqueNames(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a, err := gatv2.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := gatv2.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	layertest.UniqueNames(t, eg, fixtures[0].Graph(t), 3, a, b, b.Learnables()[1], []float64{1, 1}, 0.5)
}

// TestSeed checks that initialisation depends on the seed and dtype only
// and that weights are Glorot-uniform with gain sqrt(2).
func TestSeed(t *testing.T) {
	t.Parallel()
	init := func(seed uint64, dt tensor.Dtype) [][]float64 {
		l, err := gatv2.New(gorgonia.NewGraph(), 6, 2, gatv2.WithHeads(2), gatv2.WithSeed(seed), gatv2.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		return gradcheck.Values(l.Learnables())
	}
	a, c := layertest.Seeded(t, 7, init)
	if !gradcheck.Differ(a[0], c[0], 1e-3) {
		t.Error("seeds 7 and 8 give the same weight")
	}
	if !gradcheck.Differ(a[0], a[2], 1e-3) {
		t.Error("the source and destination weights start equal")
	}
	layertest.Bounded(t, a[0], math.Sqrt2*math.Sqrt(6.0/10))
}
