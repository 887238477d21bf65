package heteroconv_test

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/heteroconv"
	"github.com/gnngo/gnn/nn/sage"
)

// Feature widths of the two node types in the bipartite tests.
const widthA, widthB = 3, 5

// bipartiteLayers builds SAGEConv on the relations between the two types
// (each with its source and destination widths; mean on (a, r, b), pool
// on (b, s, a)) and GraphConv within each type.
func bipartiteLayers(t testing.TB, eg *gorgonia.ExprGraph, dt tensor.Dtype) map[hetero.EdgeType]nn.Layer {
	ab, err := sage.New(eg, widthA, out, sage.WithDstIn(widthB), sage.WithDtype(dt), sage.WithSeed(1), sage.WithName("sage_r"))
	if err != nil {
		t.Fatal(err)
	}
	ba, err := sage.New(eg, widthB, out, sage.WithDstIn(widthA), sage.WithAggregator(sage.Pool), sage.WithDtype(dt), sage.WithSeed(2), sage.WithName("sage_s"))
	if err != nil {
		t.Fatal(err)
	}
	aa, err := gcn.New(eg, widthA, out, gcn.WithDtype(dt), gcn.WithSeed(3), gcn.WithAllowZeroInDegree(true), gcn.WithName("gcn_t"))
	if err != nil {
		t.Fatal(err)
	}
	bb, err := gcn.New(eg, widthB, out, gcn.WithDtype(dt), gcn.WithSeed(4), gcn.WithAllowZeroInDegree(true), gcn.WithName("gcn_u"))
	if err != nil {
		t.Fatal(err)
	}
	return map[hetero.EdgeType]nn.Layer{rAB: ab, sBA: ba, tAA: aa, uBB: bb}
}

func bipartiteInputs(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) map[string]*gorgonia.Node {
	return map[string]*gorgonia.Node{
		"a": gradcheck.Input(eg, dt, "xa", []int{5, widthA}, gradcheck.Draw(r, 5*widthA)),
		"b": gradcheck.Input(eg, dt, "xb", []int{4, widthB}, gradcheck.Draw(r, 4*widthB)),
	}
}

// TestBipartiteForward checks that HeteroGraphConv gives SAGEConv on a
// relation between two types the destination type's features: each type's
// output is the sum of the layers run one by one on the relations' graphs
// (ForwardBipartite with the (source, destination) pair between types,
// Forward within one).
func TestBipartiteForward(t *testing.T) {
	h := fixture(t)
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		eg := gorgonia.NewGraph()
		mods, x := bipartiteLayers(t, eg, dt), bipartiteInputs(eg, dt, rand.New(rand.NewPCG(3, 4)))
		var refs []*gorgonia.Node // a: t, s; b: r, u
		for _, et := range []hetero.EdgeType{tAA, sBA, rAB, uBB} {
			g, _ := h.Relation(et)
			var y *gorgonia.Node
			var err error
			if et.Src == et.Dst {
				y, err = mods[et].Forward(g, x[et.Src])
			} else {
				y, err = mods[et].(nn.BipartiteLayer).ForwardBipartite(g, x[et.Src], x[et.Dst])
			}
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, y)
		}
		ref := gradcheck.Run(t, refs...)

		eg = gorgonia.NewGraph()
		c, err := heteroconv.New(bipartiteLayers(t, eg, dt), mp.CrossSum)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Forward(h, bipartiteInputs(eg, dt, rand.New(rand.NewPCG(3, 4))))
		if err != nil {
			t.Fatal(err)
		}
		got := gradcheck.Run(t, res["a"], res["b"])
		tol := 1e-12
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		gradcheck.Expect(t, dt.String()+" a", got[0], reduce(mp.CrossSum, ref[0], ref[1]), tol)
		gradcheck.Expect(t, dt.String()+" b", got[1], reduce(mp.CrossSum, ref[2], ref[3]), tol)
	}
}

// TestBipartiteGradients checks the gradients of both types' features and
// every layer's parameters through HeteroGraphConv by finite differences.
func TestBipartiteGradients(t *testing.T) {
	h := fixture(t)
	for _, nt := range []string{"a", "b"} {
		t.Run(nt, func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				c, err := heteroconv.New(bipartiteLayers(t, eg, dt), mp.CrossSum)
				if err != nil {
					return nil, nil, err
				}
				x := bipartiteInputs(eg, dt, r)
				res, err := c.Forward(h, x)
				if err != nil {
					return nil, nil, err
				}
				wrt := gorgonia.Nodes{x["a"], x["b"]}
				for _, p := range c.Learnables() {
					// Each type's output reads the layers of the relations into it.
					name := p.Name()
					if (nt == "a" && (name[:6] == "sage_s" || name[:5] == "gcn_t")) || (nt == "b" && (name[:6] == "sage_r" || name[:5] == "gcn_u")) {
						wrt = append(wrt, p)
					}
				}
				return res[nt], wrt, nil
			}
			gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: 7, Stream: 8, NonSmooth: true})
		})
	}
}
