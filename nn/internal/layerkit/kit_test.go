package layerkit_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// toy is a layer package's configuration, as the layers declare theirs.
type toy struct {
	layerkit.Config
	heads    int
	attnDrop float64
}

type toyOption func(*toy) error

var kit = layerkit.Kit[*toy, toyOption]{Pkg: "toy"}

// newToy is a constructor's prologue and parameters: a (in, heads) weight
// from stream 0, a (1, heads, 1) attention drawn as (heads, 1), a bias and
// a constant.
func newToy(eg *gorgonia.ExprGraph, in int, opts ...toyOption) (*toy, gorgonia.Nodes, error) {
	c := &toy{heads: 1}
	if err := kit.Setup(eg, c, opts, func(c *toy) float64 { return c.attnDrop }); err != nil {
		return nil, nil, err
	}
	ps := c.Params(eg)
	params := gorgonia.Nodes{
		ps.Glorot("weight", 0, 1, in, c.heads),
		ps.GlorotAs("attn", 1, 1, []int{c.heads, 1}, 1, c.heads, 1),
		ps.Zeros("bias", c.heads),
		ps.Fill("eps", 0.5, 1, 1),
	}
	if err := ps.Err(); err != nil {
		return nil, nil, err
	}
	return c, params, nil
}

func TestKitOptionErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	attn := func(p float64) toyOption {
		return kit.Probability("attention dropout", p, func(c *toy) *float64 { return &c.attnDrop })
	}
	for _, c := range []struct {
		name string
		eg   *gorgonia.ExprGraph
		opts []toyOption
		want string
	}{
		{"nil graph", nil, nil, "toy: nil expression graph"},
		{"nil option", eg, []toyOption{nil}, "toy: nil option"},
		{"empty name", eg, []toyOption{kit.Name("")}, "toy: empty name"},
		{"dtype", eg, []toyOption{kit.Dtype(tensor.Int)}, "toy: dtype int, want float32 or float64"},
		{"dropout", eg, []toyOption{kit.Dropout(1)}, "toy: feature dropout 1 is not in [0, 1)"},
		{"dropout nan", eg, []toyOption{kit.Dropout(nan())}, "is not in [0, 1)"},
		{"attention dropout", eg, []toyOption{attn(-0.1)}, "toy: attention dropout -0.1 is not in [0, 1)"},
		{"no mode", eg, []toyOption{kit.Dropout(0.5)}, "toy: dropout needs WithMode"},
		{"no mode, other dropout", eg, []toyOption{attn(0.5)}, "toy: dropout needs WithMode"},
		{"heads", eg, []toyOption{kit.AtLeast("heads", 0, 1, func(c *toy) *int { return &c.heads })}, "toy: heads 0, want at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := newToy(c.eg, 3, c.opts...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, _, err := newToy(eg, 3, kit.Dropout(0.5), kit.Mode(nn.NewMode())); err != nil {
		t.Errorf("dropout with a mode: %v", err)
	}
	if err := kit.Sizes(0, 2); err == nil || !strings.Contains(err.Error(), "toy: feature sizes must be positive") {
		t.Errorf("Sizes(0, 2): %v", err)
	}
}

func TestKitDefaults(t *testing.T) {
	eg := gorgonia.NewGraph()
	a, pa, err := newToy(eg, 3, kit.AtLeast("heads", 2, 1, func(c *toy) *int { return &c.heads }))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := newToy(eg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "toy1" || b.Name != "toy2" || a.Dtype != tensor.Float32 || a.Pkg != "toy" {
		t.Errorf("defaults: names %q, %q, dtype %v, pkg %q; want toy1, toy2, float32, toy", a.Name, b.Name, a.Dtype, a.Pkg)
	}
	if a.Seed != nn.SeedOf("toy1") || b.Seed != nn.SeedOf("toy2") {
		t.Errorf("default seeds %d, %d; want nn.SeedOf of the names", a.Seed, b.Seed)
	}
	w, err := nn.Glorot(tensor.Float32, nn.ParamSeed(a.Seed, 0), 1, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(w, pa[0].Value().(*tensor.Dense)) || pa[0].Name() != "toy1.weight" {
		t.Errorf("weight %q is not nn.Glorot of the layer's stream 0", pa[0].Name())
	}
	if s := pa[1].Shape(); !s.Eq(tensor.Shape{1, 2, 1}) {
		t.Errorf("attention shape %v, want (1, 2, 1)", s)
	}
	if got := pa[3].Value().Data().([]float32)[0]; got != 0.5 {
		t.Errorf("eps %v, want 0.5", got)
	}
	c, _, err := newToy(gorgonia.NewGraph(), 3, kit.Name("x"), kit.Seed(0), kit.Dtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "x" || c.Seed != 0 || c.Dtype != tensor.Float64 {
		t.Errorf("options: %q, seed %d, %v; want x, 0, float64", c.Name, c.Seed, c.Dtype)
	}
}

// TestParamsValues checks that Params honours given values, refuses
// mismatched ones naming the parameter, and keeps the first error.
func TestParamsValues(t *testing.T) {
	_, drawn, err := newToy(gorgonia.NewGraph(), 3)
	if err != nil {
		t.Fatal(err)
	}
	given := map[string]*tensor.Dense{}
	for _, p := range drawn {
		given[p.Name()] = p.Value().(*tensor.Dense).Clone().(*tensor.Dense)
	}
	_, ps, err := newToy(gorgonia.NewGraph(), 3, kit.Seed(99), kit.Values(func(name string) *tensor.Dense { return given[name] }))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Value() != gorgonia.Value(given[p.Name()]) {
			t.Errorf("%q does not hold the given tensor", p.Name())
		}
	}
	for name, bad := range map[string]*tensor.Dense{
		"toy1.weight": nn.Zeros(tensor.Float32, 2, 3),
		"toy1.attn":   nn.Zeros(tensor.Float64, 1, 1, 1),
	} {
		_, _, err := newToy(gorgonia.NewGraph(), 3, kit.Values(func(n string) *tensor.Dense {
			if n == name {
				return bad
			}
			return nil
		}))
		want := fmt.Sprintf("toy: toy1: the initial value of %q is %v %v", name, bad.Dtype(), bad.Shape())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mismatched %s: got %v, want an error containing %q", name, err, want)
		}
	}
}

func TestCheckInput(t *testing.T) {
	eg := gorgonia.NewGraph()
	c, _, err := newToy(eg, 3)
	if err != nil {
		t.Fatal(err)
	}
	g := goldenGraph(t)
	block := gradcheckBlock(t)
	x := goldenInput(eg, tensor.Float32, 6, 3)
	for _, k := range []struct {
		name string
		err  error
		want string
	}{
		{"nil graph", c.CheckInput(nil, x, 3), "toy: toy1: Forward needs a graph and features"},
		{"nil features", c.CheckInput(g, nil, 3), "needs a graph and features"},
		{"columns", c.CheckInput(g, x, 4), `features "x" have shape (6, 3), want (6, 4)`},
		{"dtype", c.CheckInput(g, goldenInput(eg, tensor.Float64, 6, 3), 3), "features have dtype float64, the layer float32"},
		{"homogeneous", c.CheckHomogeneous(block, x, 3, "Toy"), "graph has 6 source and 2 destination nodes; Toy needs a homogeneous graph"},
		{"dst rows", c.CheckDst(block, x, 3), "destination features \"x\" have shape (6, 3), want (2, 3)"},
		{"dst dtype", c.CheckDst(block, goldenInput(eg, tensor.Float64, 2, 3), 3), "destination features have dtype float64"},
		{"dst first", c.CheckDstFirst(gradcheckBlockT(t)), "graph has 6 destination nodes but 2 sources"},
	} {
		if k.err == nil || !strings.Contains(k.err.Error(), k.want) {
			t.Errorf("%s: got %v, want an error containing %q", k.name, k.err, k.want)
		}
	}
	if err := c.CheckInput(g, x, 3); err != nil {
		t.Errorf("good input: %v", err)
	}
	if err := c.CheckDstFirst(block); err != nil {
		t.Errorf("block: %v", err)
	}
}

func nan() float64 { return math.NaN() }

// gradcheckBlock is a block of 6 sources and 2 destinations.
func gradcheckBlock(t testing.TB) *graph.Graph {
	return gradcheck.Graph(t, 6, 2, []int32{2, 3, 4}, []int32{0, 1, 1})
}

// gradcheckBlockT is a graph of 2 sources and 6 destinations.
func gradcheckBlockT(t testing.TB) *graph.Graph {
	return gradcheck.Graph(t, 2, 6, []int32{0, 1}, []int32{4, 5})
}

func TestCheckZeroInAndEdgeFeatures(t *testing.T) {
	eg := gorgonia.NewGraph()
	c, _, err := newToy(eg, 3)
	if err != nil {
		t.Fatal(err)
	}
	block := gradcheckBlockT(t) // destinations 0 to 3 have no in-edges
	err = c.CheckZeroIn(block, "the bias alone")
	want := "toy: toy1: 4 of 6 destination nodes have no in-edges (node 0 first); their output would be the bias alone; add self-loops"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "WithAllowZeroInDegree(true)") {
		t.Errorf("CheckZeroIn: %v, want %q", err, want)
	}
	c.AllowZeroIn = true
	if err := c.CheckZeroIn(block, ""); err != nil {
		t.Errorf("CheckZeroIn allowed: %v", err)
	}
	ef := goldenInput(eg, tensor.Float32, 2, 3)
	for _, k := range []struct {
		name string
		err  error
		want string
	}{
		{"missing", c.CheckEdgeFeatures(block, nil, 3), "takes edge features of size 3; use ForwardEdges"},
		{"unwanted", c.CheckEdgeFeatures(block, ef, 0), "built without WithEdgeFeatures"},
		{"shape", c.CheckEdgeFeatures(block, ef, 4), `edge features "x" have shape (2, 3), want (2, 4)`},
		{"dtype", c.CheckEdgeFeatures(block, goldenInput(eg, tensor.Float64, 2, 3), 3), "edge features have dtype float64, the layer float32"},
	} {
		if k.err == nil || !strings.Contains(k.err.Error(), k.want) {
			t.Errorf("%s: got %v, want an error containing %q", k.name, k.err, k.want)
		}
	}
	if err := c.CheckEdgeFeatures(block, ef, 3); err != nil {
		t.Errorf("good edge features: %v", err)
	}
	if err := c.CheckEdgeFeatures(block, nil, 0); err != nil {
		t.Errorf("no edge features: %v", err)
	}
}

func TestPresent(t *testing.T) {
	if ps := layerkit.Present(nil, nil); ps != nil {
		t.Errorf("Present of nils = %v, want nil", ps)
	}
	eg := gorgonia.NewGraph()
	a := gorgonia.NewScalar(eg, tensor.Float32, gorgonia.WithName("a"))
	b := gorgonia.NewScalar(eg, tensor.Float32, gorgonia.WithName("b"))
	if ps := layerkit.Present(nil, a, nil, b); len(ps) != 2 || ps[0] != a || ps[1] != b {
		t.Errorf("Present = %v, want [a b]", ps)
	}
}
