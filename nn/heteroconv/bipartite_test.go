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
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/heteroconv"
	"github.com/gnngo/gnn/nn/sage"
)

// Feature widths of the two node types in the bipartite tests.
const widthA, widthB = 3, 5

// bipartiteLayers builds, on the relations between the two types, each
// with its source and destination widths, a mean SAGEConv on (a, r, b) and
// a two-head GATConv with a residual on (b, s, a) (a pool SAGEConv with
// pool set), and GraphConv within each type.
func bipartiteLayers(t testing.TB, eg *gorgonia.ExprGraph, dt tensor.Dtype, pool bool) map[hetero.EdgeType]nn.Layer {
	ab, err := sage.New(eg, widthA, out, sage.WithDstIn(widthB), sage.WithDtype(dt), sage.WithSeed(1), sage.WithName("sage_r"))
	if err != nil {
		t.Fatal(err)
	}
	var ba nn.Layer
	if pool {
		ba, err = sage.New(eg, widthB, out, sage.WithDstIn(widthA), sage.WithAggregator(sage.Pool), sage.WithDtype(dt), sage.WithSeed(2), sage.WithName("sage_s"))
	} else {
		// Two heads of out/2 features, the residual projected from width A.
		ba, err = gat.New(eg, widthB, out/2, gat.WithHeads(2), gat.WithDstIn(widthA), gat.WithResidual(true),
			gat.WithAllowZeroInDegree(true), gat.WithDtype(dt), gat.WithSeed(2), gat.WithName("sage_s_gat"))
	}
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
	for _, c := range []struct {
		dt   tensor.Dtype
		pool bool
	}{{tensor.Float32, true}, {tensor.Float64, true}, {tensor.Float32, false}, {tensor.Float64, false}} {
		dt := c.dt
		eg := gorgonia.NewGraph()
		mods, x := bipartiteLayers(t, eg, dt, c.pool), bipartiteInputs(eg, dt, rand.New(rand.NewPCG(3, 4)))
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
		conv, err := heteroconv.New(bipartiteLayers(t, eg, dt, c.pool), mp.CrossSum)
		if err != nil {
			t.Fatal(err)
		}
		res, err := conv.Forward(h, bipartiteInputs(eg, dt, rand.New(rand.NewPCG(3, 4))))
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
	for _, nt := range []string{"a", "a-gat", "b"} {
		pool := nt != "a-gat"
		nt := nt[:1]
		t.Run(nt+map[bool]string{true: "", false: "-gat"}[pool], func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				c, err := heteroconv.New(bipartiteLayers(t, eg, dt, pool), mp.CrossSum)
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
			gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: 7, Stream: 8, NonSmooth: pool})
		})
	}
}
