package heteroconv_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/heteroconv"
	"github.com/gnngo/gnn/nn/sage"
)

const in, out = 3, 2

var (
	rAB = hetero.EdgeType{Src: "a", Rel: "r", Dst: "b"}
	sBA = hetero.EdgeType{Src: "b", Rel: "s", Dst: "a"}
	tAA = hetero.EdgeType{Src: "a", Rel: "t", Dst: "a"}
	uBB = hetero.EdgeType{Src: "b", Rel: "u", Dst: "b"}
)

func fixture(t testing.TB) *hetero.Graph {
	rng := rand.New(rand.NewPCG(1, 2))
	h, err := hetero.New(map[string]int{"a": 5, "b": 4}, map[hetero.EdgeType]*graph.Graph{
		rAB: testgraphs.Random(t, rng, 5, 4, 8),
		sBA: testgraphs.Random(t, rng, 4, 5, 9),
		tAA: testgraphs.Random(t, rng, 5, 5, 7),
		uBB: testgraphs.Random(t, rng, 4, 4, 6),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// layers builds the same relation layers on eg each time: GraphConv on
// every relation but (a, t, a), which gets a mean SAGEConv.
func layers(t testing.TB, eg *gorgonia.ExprGraph, dt tensor.Dtype) map[hetero.EdgeType]nn.Layer {
	mods := map[hetero.EdgeType]nn.Layer{}
	for i, et := range []hetero.EdgeType{rAB, sBA, uBB} {
		l, err := gcn.New(eg, in, out, gcn.WithDtype(dt), gcn.WithSeed(uint64(i+1)), gcn.WithAllowZeroInDegree(true), gcn.WithName("gcn_"+et.Rel))
		if err != nil {
			t.Fatal(err)
		}
		mods[et] = l
	}
	l, err := sage.New(eg, in, out, sage.WithDtype(dt), sage.WithSeed(9), sage.WithName("sage_t"))
	if err != nil {
		t.Fatal(err)
	}
	mods[tAA] = l
	return mods
}

func inputs(eg *gorgonia.ExprGraph, dt tensor.Dtype) map[string]*gorgonia.Node {
	r := rand.New(rand.NewPCG(3, 4))
	return map[string]*gorgonia.Node{
		"a": gradcheck.Input(eg, dt, "xa", []int{5, in}, gradcheck.Draw(r, 5*in)),
		"b": gradcheck.Input(eg, dt, "xb", []int{4, in}, gradcheck.Draw(r, 4*in)),
	}
}

// TestForward checks each type's output against the relation layers run
// one by one on the relations' graphs, reduced here.
func TestForward(t *testing.T) {
	h := fixture(t)
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, agg := range []mp.CrossReducer{mp.CrossSum, mp.CrossMean, mp.CrossMax, mp.CrossMin, mp.CrossStack} {
			eg := gorgonia.NewGraph()
			mods, x := layers(t, eg, dt), inputs(eg, dt)
			var refs []*gorgonia.Node // a: t, s; b: r, u (edge-type order)
			for _, et := range []hetero.EdgeType{tAA, sBA, rAB, uBB} {
				g, _ := h.Relation(et)
				y, err := mods[et].Forward(g, x[et.Src])
				if err != nil {
					t.Fatal(err)
				}
				refs = append(refs, y)
			}
			ref := gradcheck.Run(t, refs...)

			eg = gorgonia.NewGraph()
			c, err := heteroconv.New(layers(t, eg, dt), agg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Forward(h, inputs(eg, dt))
			if err != nil {
				t.Fatal(err)
			}
			got := gradcheck.Run(t, res["a"], res["b"])
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			gradcheck.Expect(t, dt.String()+" "+agg.String()+" a", got[0], reduce(agg, ref[0], ref[1]), tol)
			gradcheck.Expect(t, dt.String()+" "+agg.String()+" b", got[1], reduce(agg, ref[2], ref[3]), tol)
			if n := len(c.Learnables()); n != 9 {
				t.Errorf("%d learnables, want 9 (3 GraphConv weights and biases, SAGEConv's 3)", n)
			}
		}
	}
}

func reduce(agg mp.CrossReducer, x, y []float64) []float64 {
	var o []float64
	if agg == mp.CrossStack {
		for i := 0; i < len(x); i += out {
			o = append(append(o, x[i:i+out]...), y[i:i+out]...)
		}
		return o
	}
	for i := range x {
		switch agg {
		case mp.CrossSum:
			o = append(o, x[i]+y[i])
		case mp.CrossMean:
			o = append(o, (x[i]+y[i])/2)
		case mp.CrossMax:
			o = append(o, math.Max(x[i], y[i]))
		case mp.CrossMin:
			o = append(o, math.Min(x[i], y[i]))
		}
	}
	return o
}

func TestGradients(t *testing.T) {
	h := fixture(t)
	for _, agg := range []mp.CrossReducer{mp.CrossSum, mp.CrossMax, mp.CrossStack} {
		t.Run(agg.String(), func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, _ *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				c, err := heteroconv.New(layers(t, eg, dt), agg)
				if err != nil {
					return nil, nil, err
				}
				x := inputs(eg, dt)
				res, err := c.Forward(h, x)
				if err != nil {
					return nil, nil, err
				}
				// a's output reads x_a, x_b and the layers of (a, t, a)
				// and (b, s, a).
				wrt := gorgonia.Nodes{x["a"], x["b"]}
				for _, p := range c.Learnables() {
					if strings.HasPrefix(p.Name(), "sage_t") || strings.HasPrefix(p.Name(), "gcn_s") {
						wrt = append(wrt, p)
					}
				}
				return res["a"], wrt, nil
			}
			gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: 7, Stream: 8})
		})
	}
}

func TestErrors(t *testing.T) {
	h := fixture(t)
	eg := gorgonia.NewGraph()
	mods := layers(t, eg, tensor.Float64)
	if _, err := heteroconv.New(nil, mp.CrossSum); err == nil {
		t.Error("no layers: no error")
	}
	if _, err := heteroconv.New(mods, mp.CrossReducer(7)); err == nil {
		t.Error("bad reducer: no error")
	}
	if _, err := heteroconv.New(map[hetero.EdgeType]nn.Layer{rAB: nil}, mp.CrossSum); err == nil || !strings.Contains(err.Error(), "(a, r, b) has a nil layer") {
		t.Errorf("nil layer: %v", err)
	}
	shared, _ := heteroconv.New(map[hetero.EdgeType]nn.Layer{rAB: mods[rAB], sBA: mods[rAB]}, mp.CrossSum)
	if n := len(shared.Learnables()); n != 2 {
		t.Errorf("one layer on two relations: %d learnables, want 2", n)
	}
	partial := map[hetero.EdgeType]nn.Layer{rAB: mods[rAB], sBA: mods[sBA], tAA: mods[tAA]}
	c, _ := heteroconv.New(partial, mp.CrossSum)
	if _, err := c.Forward(h, inputs(eg, tensor.Float64)); err == nil || !strings.Contains(err.Error(), "(b, u, b) has input features but no layer") {
		t.Errorf("missing layer: %v", err)
	}
	// Without b's features, only a's relations run: (b, u, b) needs no layer.
	res, err := c.Forward(h, map[string]*gorgonia.Node{"a": inputs(eg, tensor.Float64)["a"]})
	if err != nil || len(res) != 2 {
		t.Errorf("a's features only: %v, %v", res, err)
	}
	x := inputs(eg, tensor.Float64)
	x["z"] = x["a"]
	if _, err := c.Forward(h, x); err == nil || !strings.Contains(err.Error(), `no node type "z"`) {
		t.Errorf("unknown type: %v", err)
	}
	bad := inputs(eg, tensor.Float64)
	bad["b"] = bad["a"]
	full, _ := heteroconv.New(mods, mp.CrossSum)
	if _, err := full.Forward(h, bad); err == nil || !strings.Contains(err.Error(), "relation (b,") {
		t.Errorf("wrong shape: %v", err)
	}
}
