package interop

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/gin"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/sage"
)

// caseIO is a fixture's inputs and outputs (testdata/NAME.io.safetensors).
type caseIO struct {
	t  *testing.T
	ts *Tensors
	dt tensor.Dtype
}

func (c caseIO) bits() int {
	if c.dt == tensor.Float64 {
		return 64
	}
	return 32
}

// dense returns tensor name as a dense of the case's dtype.
func (c caseIO) dense(name string) *tensor.Dense {
	c.t.Helper()
	x := c.ts.Get(name)
	if x == nil {
		c.t.Fatalf("fixture has no tensor %q", name)
	}
	a := array{append([]int{}, x.Shape...), x.Float64s()}
	return a.dense(c.dt)
}

func (c caseIO) ints(name string) []int32 {
	c.t.Helper()
	v, err := c.ts.Get(name).Int64s()
	if err != nil {
		c.t.Fatal(err)
	}
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

// graph returns the fixture's raw graph (10 nodes; node 9 has no in-edges;
// one self-loop on node 3).
func (c caseIO) graph() *graph.Graph {
	c.t.Helper()
	src, dst := c.ints("src"), c.ints("dst")
	g, err := graph.FromCOO(10, 10, src, dst)
	if err != nil {
		c.t.Fatal(err)
	}
	return g
}

// withLoops is DGL's add_self_loop: one more loop on every node.
func (c caseIO) withLoops() *graph.Graph {
	g, err := c.graph().AddSelfLoops()
	if err != nil {
		c.t.Fatal(err)
	}
	return g
}

// pygAttentionLoops is what PyG's GATConv and GATv2Conv do to the graph:
// remove every loop, add one per node.
func (c caseIO) pygAttentionLoops() *graph.Graph {
	g, _ := c.graph().RemoveSelfLoops()
	g, err := g.AddSelfLoops()
	if err != nil {
		c.t.Fatal(err)
	}
	return g
}

// pygEdgeLoops is pygAttentionLoops with the edge features: PyG's
// fill_value "mean" for the added loops, by PyGAttentionLoops, checked
// against the features the reference computed.
func (c caseIO) pygEdgeLoops(eg *gorgonia.ExprGraph) (*graph.Graph, *gorgonia.Node) {
	c.t.Helper()
	g, ef, err := PyGAttentionLoops(c.graph(), c.ts.Get("ef").Float64s(), 2)
	if err != nil {
		c.t.Fatal(err)
	}
	want := c.ts.Get("ef_loops").Float64s()
	if len(ef) != len(want) {
		c.t.Fatalf("%d edge feature values, reference %d", len(ef), len(want))
	}
	for i := range ef {
		if math.Abs(ef[i]-want[i]) > 1e-15 {
			c.t.Fatalf("edge feature %d: %v, reference %v", i, ef[i], want[i])
		}
	}
	return g, c.node(eg, "ef", array{[]int{len(ef) / 2, 2}, ef}.dense(c.dt))
}

func (c caseIO) node(eg *gorgonia.ExprGraph, name string, v *tensor.Dense) *gorgonia.Node {
	return gorgonia.NodeFromAny(eg, v, gorgonia.WithName(name))
}

// layerFn builds the gnn layer (named as the conversion's Layer.Name) and
// its output on the fixture's inputs.
type layerFn func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (out *gorgonia.Node, params gorgonia.Nodes, err error)

// fixtureCase is one converted layer: the file, the conversion, the gnn
// layer.
type fixtureCase struct {
	file  string
	fw    string // "PyG" or "DGL"
	layer Layer
	build layerFn
}

// mlpStep is one module of a GIN test MLP: a Linear (in, out), an
// eval-mode BatchNorm converted to x*weight + bias (f features), or a ReLU.
type mlpStep struct {
	kind    string // "linear", "norm" or "relu"
	idx     int    // the module's index in the PyTorch Sequential
	in, out int
}

// mlp builds the steps as an apply function with parameters named
// prefix.<idx>.weight and prefix.<idx>.bias, as the conversion names them.
func mlp(eg *gorgonia.ExprGraph, dt tensor.Dtype, prefix string, steps ...mlpStep) (nn.Activation, gorgonia.Nodes) {
	var params gorgonia.Nodes
	vec := func(name string, n int) *gorgonia.Node {
		return gorgonia.NewTensor(eg, dt, 1, gorgonia.WithShape(n), gorgonia.WithName(name), gorgonia.WithInit(gorgonia.Zeroes()))
	}
	var fns []nn.Activation
	for _, s := range steps {
		name := fmt.Sprintf("%s.%d.", prefix, s.idx)
		switch s.kind {
		case "relu":
			fns = append(fns, nn.ReLU)
		case "linear":
			w := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(s.in, s.out), gorgonia.WithName(name+"weight"), gorgonia.WithInit(gorgonia.Zeroes()))
			b := vec(name+"bias", s.out)
			params = append(params, w, b)
			fns = append(fns, func(h *gorgonia.Node) (*gorgonia.Node, error) {
				h, err := gorgonia.Mul(h, w)
				if err != nil {
					return nil, err
				}
				return nn.AddBias(h, b)
			})
		case "norm":
			sc, b, f := vec(name+"weight", s.in), vec(name+"bias", s.in), s.in
			params = append(params, sc, b)
			fns = append(fns, func(h *gorgonia.Node) (*gorgonia.Node, error) {
				row, err := gorgonia.Reshape(sc, tensor.Shape{1, f})
				if err != nil {
					return nil, err
				}
				if h, err = gorgonia.BroadcastHadamardProd(h, row, nil, []byte{0}); err != nil {
					return nil, err
				}
				return nn.AddBias(h, b)
			})
		}
	}
	return func(h *gorgonia.Node) (*gorgonia.Node, error) {
		var err error
		for _, f := range fns {
			if h, err = f(h); err != nil {
				return nil, err
			}
		}
		return h, nil
	}, params
}

func fixtureCases() []fixtureCase {
	return []fixtureCase{
		{"pyg_gcn", "PyG", Layer{Kind: "GCNConv", Name: "gcn1"}, pygGCNFn(false)},
		{"pyg_gcn_weighted", "PyG", Layer{Kind: "GCNConv", Name: "gcn1"}, pygGCNFn(true)},
		{"pyg_gat", "PyG", Layer{Kind: "GATConv", Name: "gat1"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gat.New(eg, 6, 3, gat.WithName("gat1"), gat.WithHeads(2), gat.WithEdgeFeatures(2), gat.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			g, ef := c.pygEdgeLoops(eg)
			out, _, err := l.ForwardEdges(g, x, ef)
			return out, l.Learnables(), err
		}},
		{"pyg_gat_mean", "PyG", Layer{Kind: "GATConv", Name: "gat1"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gat.New(eg, 6, 3, gat.WithName("gat1"), gat.WithHeads(2), gat.WithMeanHeads(true), gat.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.pygAttentionLoops(), x)
			return out, l.Learnables(), err
		}},
		{"pyg_gatv2", "PyG", Layer{Kind: "GATv2Conv", Name: "v2"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gatv2.New(eg, 6, 3, gatv2.WithName("v2"), gatv2.WithHeads(2), gatv2.WithEdgeFeatures(2), gatv2.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			g, ef := c.pygEdgeLoops(eg)
			out, _, err := l.ForwardEdges(g, x, ef)
			return out, l.Learnables(), err
		}},
		{"pyg_gatv2_shared", "PyG", Layer{Kind: "GATv2Conv", Name: "v2"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gatv2.New(eg, 6, 3, gatv2.WithName("v2"), gatv2.WithHeads(2), gatv2.WithMeanHeads(true), gatv2.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.pygAttentionLoops(), x)
			return out, l.Learnables(), err
		}},
		{"pyg_sage", "PyG", Layer{Kind: "SAGEConv", Name: "sage1"}, sageFn(sage.Mean)},
		{"pyg_sage_max", "PyG", Layer{Kind: "SAGEConv", Name: "sage1", Aggregator: "max"}, sageFn(sage.Pool)},
		{"pyg_gin", "PyG", Layer{Kind: "GINConv", Name: "gin1"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			f, ps := mlp(eg, c.dt, "gin1.nn", mlpStep{"linear", 0, 6, 8}, mlpStep{"norm", 1, 8, 8}, mlpStep{kind: "relu"}, mlpStep{"linear", 3, 8, 4})
			l, err := gin.New(eg, 6, 4, gin.WithName("gin1"), gin.WithLearnEps(true), gin.WithApply(f, ps...), gin.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.graph(), x)
			return out, l.Learnables(), err
		}},
		{"pyg_rgcn", "PyG", Layer{Kind: "RGCNConv", Name: "rgcn1"}, rgcnFn(nil, true)},
		{"pyg_rgcn_basis", "PyG", Layer{Kind: "RGCNConv", Name: "rgcn1"}, rgcnFn([]rgcn.Option{rgcn.WithBasis(2)}, true)},
		{"pyg_rgcn_blocks", "PyG", Layer{Kind: "RGCNConv", Name: "rgcn1"}, rgcnFn([]rgcn.Option{rgcn.WithBlockDiagonal(2)}, true)},
		{"dgl_graphconv", "DGL", Layer{Kind: "GraphConv", Name: "gcn1"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gcn.New(eg, 6, 4, gcn.WithName("gcn1"), gcn.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.withLoops(), x)
			return out, l.Learnables(), err
		}},
		{"dgl_gat", "DGL", Layer{Kind: "GATConv", Name: "gat1"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gat.New(eg, 6, 4, gat.WithName("gat1"), gat.WithHeads(2), gat.WithResidual(true), gat.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.withLoops(), x)
			return out, l.Learnables(), err
		}},
		{"dgl_gatv2", "DGL", Layer{Kind: "GATv2Conv", Name: "v2"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			l, err := gatv2.New(eg, 6, 3, gatv2.WithName("v2"), gatv2.WithHeads(2), gatv2.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.withLoops(), x)
			return out, l.Learnables(), err
		}},
		{"dgl_sage", "DGL", Layer{Kind: "SAGEConv", Name: "sage1"}, sageFn(sage.Mean)},
		{"dgl_sage_gcn", "DGL", Layer{Kind: "SAGEConv", Name: "sage1"}, sageFn(sage.GCN)},
		{"dgl_sage_pool", "DGL", Layer{Kind: "SAGEConv", Name: "sage1"}, sageFn(sage.Pool)},
		{"dgl_gin", "DGL", Layer{Kind: "GINConv", Name: "gin1"}, func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
			f, ps := mlp(eg, c.dt, "gin1.apply_func", mlpStep{"linear", 0, 6, 8}, mlpStep{kind: "relu"}, mlpStep{"linear", 2, 8, 4})
			l, err := gin.New(eg, 6, 4, gin.WithName("gin1"), gin.WithLearnEps(true), gin.WithApply(f, ps...), gin.WithDtype(c.dt))
			if err != nil {
				return nil, nil, err
			}
			out, err := l.Forward(c.graph(), x)
			return out, l.Learnables(), err
		}},
		{"dgl_rgcn", "DGL", Layer{Kind: "RelGraphConv", Name: "rgcn1"}, rgcnFn(nil, false)},
		{"dgl_rgcn_basis", "DGL", Layer{Kind: "RelGraphConv", Name: "rgcn1"}, rgcnFn([]rgcn.Option{rgcn.WithBasis(2)}, false)},
		{"dgl_rgcn_bdd", "DGL", Layer{Kind: "RelGraphConv", Name: "rgcn1", Bases: 2}, rgcnFn([]rgcn.Option{rgcn.WithBlockDiagonal(2)}, false)},
	}
}

// pygGCNFn runs PyG's GCNConv on the fixture's directed graph (with its
// edge weights): PyG's self-loops and in-degree normalisation, as edge
// weights of a norm-less layer.
func pygGCNFn(weighted bool) layerFn {
	return func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		var ew []float64
		if weighted {
			ew = c.ts.Get("ew").Float64s()
		}
		g, ew, err := PyGSelfLoops(c.graph(), ew, 1)
		if err != nil {
			return nil, nil, err
		}
		w, err := PyGGCNNorm(g, ew)
		if err != nil {
			return nil, nil, err
		}
		l, err := gcn.New(eg, 6, 4, gcn.WithName("gcn1"), gcn.WithNorm(gcn.None), gcn.WithDtype(c.dt))
		if err != nil {
			return nil, nil, err
		}
		out, err := l.ForwardWeighted(g, x, c.node(eg, "ew", array{[]int{len(w), 1}, w}.dense(c.dt)))
		return out, l.Learnables(), err
	}
}

func sageFn(agg sage.Aggregator) layerFn {
	return func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		l, err := sage.New(eg, 6, 4, sage.WithName("sage1"), sage.WithAggregator(agg), sage.WithDtype(c.dt))
		if err != nil {
			return nil, nil, err
		}
		out, err := l.Forward(c.graph(), x)
		return out, l.Learnables(), err
	}
}

// rgcnFn builds a RelGraphConv over the fixture's relations, with PyG's
// per-relation mean (rgcn.RightNorm) or the norm DGL was given.
func rgcnFn(opts []rgcn.Option, rightNorm bool) layerFn {
	return func(eg *gorgonia.ExprGraph, c caseIO, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
		g, et := c.graph(), c.ints("etype")
		var norm []float64
		var err error
		if rightNorm {
			if norm, err = rgcn.RightNorm(g, et, 3); err != nil {
				return nil, nil, err
			}
		} else {
			norm = c.ts.Get("norm").Float64s()
		}
		rel, err := rgcn.Group(g, et, 3, norm)
		if err != nil {
			return nil, nil, err
		}
		l, err := rgcn.New(eg, 6, 4, 3, append([]rgcn.Option{rgcn.WithName("rgcn1"), rgcn.WithDtype(c.dt)}, opts...)...)
		if err != nil {
			return nil, nil, err
		}
		out, err := l.Forward(rel, x)
		return out, l.Learnables(), err
	}
}

func readFixture(t *testing.T, name string) *Tensors {
	t.Helper()
	ts, err := ReadSafetensors(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestFixtures converts every fixture's weights, runs the gnn layer on the
// fixture's graph and features and compares with the reference outputs:
// within 1e-12 in float64 and 1e-5 in float32 (relative to max(1, |want|)).
func TestFixtures(t *testing.T) {
	for _, fc := range fixtureCases() {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			c := caseIO{t: t, ts: readFixture(t, fc.file+".io.safetensors"), dt: dt}
			t.Run(fmt.Sprintf("%s/f%d", fc.file, c.bits()), func(t *testing.T) {
				c.t = t
				weights := readFixture(t, fmt.Sprintf("%s.f%d.safetensors", fc.file, c.bits()))
				l := fc.layer
				l.Dtype = dt
				convert := PyG
				if fc.fw == "DGL" {
					convert = DGL
				}
				vals, err := convert(weights, l)
				if err != nil {
					t.Fatal(err)
				}
				if u := weights.Unused(); len(u) != 0 {
					t.Errorf("unused tensors %v", u)
				}
				eg := gorgonia.NewGraph()
				x := c.node(eg, "x", c.dense(fmt.Sprintf("x%d", c.bits())))
				out, params, err := fc.build(eg, c, x)
				if err != nil {
					t.Fatal(err)
				}
				if err := vals.Assign(params); err != nil {
					t.Fatal(err)
				}
				vm := gorgonia.NewTapeMachine(eg)
				defer vm.Close()
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				want := c.ts.Get(fmt.Sprintf("out%d", c.bits()))
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				compare(t, out.Value().(*tensor.Dense), want, tol)
			})
		}
	}
}

// compare checks got against want elementwise within tol * max(1, |want|).
func compare(t *testing.T, got *tensor.Dense, want *Tensor, tol float64) {
	t.Helper()
	g := array{nil, nil}
	switch d := got.Data().(type) {
	case []float64:
		g.data = d
	case []float32:
		for _, v := range d {
			g.data = append(g.data, float64(v))
		}
	}
	w := want.Float64s()
	if got.Shape().TotalSize() != len(w) || len(got.Shape()) != len(want.Shape) {
		t.Fatalf("output shape %v, reference %v", got.Shape(), want.Shape)
	}
	worst := 0.0
	for i := range w {
		if e := math.Abs(g.data[i]-w[i]) / math.Max(1, math.Abs(w[i])); e > worst || math.IsNaN(e) {
			worst = e
			if e > tol || math.IsNaN(e) {
				t.Fatalf("element %d: %v, reference %v (error %.3g > %g)", i, g.data[i], w[i], e, tol)
			}
		}
	}
	t.Logf("largest error %.3g", worst)
}

// TestPyGGCNNeedsItsNorm shows why PyG's GCNConv is mapped with
// PyGGCNNorm on the fixture's directed graph: gnn's norm Both (DGL's, the
// source's out-degree) gives another result there.
func TestPyGGCNNeedsItsNorm(t *testing.T) {
	c := caseIO{t: t, ts: readFixture(t, "pyg_gcn.io.safetensors"), dt: tensor.Float64}
	p, err := PyG(readFixture(t, "pyg_gcn.f64.safetensors"), Layer{Kind: "GCNConv", Name: "gcn1", Dtype: tensor.Float64})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := PyGSelfLoops(c.graph(), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	l, err := gcn.New(eg, 6, 4, gcn.WithName("gcn1"), gcn.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
	out, err := l.Forward(g, c.node(eg, "x", c.dense("x64")))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Assign(l.Learnables()); err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	got, want := out.Value().Data().([]float64), c.ts.Get("out64").Float64s()
	worst := 0.0
	for i := range want {
		worst = math.Max(worst, math.Abs(got[i]-want[i]))
	}
	if worst < 1e-3 {
		t.Fatalf("norm Both agrees with PyG on a directed graph (largest difference %g); the fixture graph should show the difference", worst)
	}
	t.Logf("norm Both differs from PyG's GCNConv by up to %.3g on the directed fixture graph", worst)
}
