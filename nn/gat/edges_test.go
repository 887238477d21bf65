package gat_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
)

// edgeCases are layers with edge features in the attention.
var edgeCases = []struct {
	name                 string
	in, heads, out, d    int
	residual, mean, bias bool
}{
	{"one-head", 3, 1, 2, 1, false, false, true},
	{"heads", 3, 2, 2, 3, false, false, true},
	{"mean-residual-no-bias", 3, 3, 2, 2, true, true, false},
}

// edgeScores is a_e · (ef W_e) per edge and head, the edge term of the
// attention logits, computed as PyG does: project, then dot.
func edgeScores(ef, we, ae []float64, ne, d, heads, f int) []float64 {
	hf := heads * f
	proj := layertest.MatMul(ef, we, ne, d, hf)
	ee := make([]float64, ne*heads)
	for e := range ne {
		for j := range hf {
			ee[e*heads+j/f] += proj[e*hf+j] * ae[j]
		}
	}
	return ee
}

// TestEdgeFeatures compares ForwardEdges with the hand computation, output
// and attention, and checks the gradients with respect to the features, the
// edge features and every parameter by finite differences.
func TestEdgeFeatures(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
	ne := len(testSrc)
	for _, c := range edgeCases {
		opts := func(dt tensor.Dtype) []gat.Option {
			return []gat.Option{gat.WithHeads(c.heads), gat.WithEdgeFeatures(c.d), gat.WithResidual(c.residual),
				gat.WithMeanHeads(c.mean), gat.WithBias(c.bias), gat.WithActivation(nn.ELU), gat.WithDtype(dt)}
		}
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(c.d), 9))
				eg := gorgonia.NewGraph()
				l, err := gat.New(eg, c.in, c.out, opts(dt)...)
				if err != nil {
					t.Fatal(err)
				}
				ps := l.Learnables()
				layertest.Randomize(r, 0.5, ps...)
				x := gradcheck.Draw(r, testN*c.in)
				ef := gradcheck.Draw(r, ne*c.d)
				y, attn, err := l.ForwardEdges(g, gradcheck.Input(eg, dt, "x", []int{testN, c.in}, x), gradcheck.Input(eg, dt, "ef", []int{ne, c.d}, ef))
				if err != nil {
					t.Fatal(err)
				}
				got := gradcheck.Run(t, append(gorgonia.Nodes{y, attn}, ps...)...)
				vals := got[2:]
				p := params{w: vals[0], al: vals[1], ar: vals[2]}
				i := 3
				if c.residual && c.in != c.heads*c.out {
					p.res, i = vals[i], i+1
				}
				if c.bias {
					p.b, i = vals[i], i+1
				}
				if len(vals) != i+2 {
					t.Fatalf("%d learnables, want %d", len(vals), i+2)
				}
				p.ee = edgeScores(ef, vals[i], vals[i+1], ne, c.d, c.heads, c.out)
				want, alpha := reference(x, p, nil, c.in, c.heads, c.out, 0.2, c.residual, c.mean, elu)
				gradcheck.Expect(t, "output", got[0], want, layertest.Tol(dt))
				gradcheck.Expect(t, "attention", got[1], alpha, layertest.Tol(dt))
			})
		}
		t.Run(c.name+"/gradients", func(t *testing.T) {
			model := func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
				r := rand.New(rand.NewPCG(4, 4))
				l, err := gat.New(eg, c.in, c.out, opts(dt)...)
				if err != nil {
					return nil, nil, err
				}
				layertest.Randomize(r, 0.5, l.Learnables()...)
				x := gradcheck.Input(eg, dt, "x", []int{testN, c.in}, gradcheck.Draw(r, testN*c.in))
				ef := gradcheck.Input(eg, dt, "ef", []int{ne, c.d}, gradcheck.Draw(r, ne*c.d))
				y, _, err := l.ForwardEdges(g, x, ef)
				return y, append(append(gorgonia.Nodes{x}, l.Learnables()...), ef), err
			}
			layertest.GradCheck(t, model, layertest.GradConfig{Seed: 31, Kinks: true})
		})
	}
}

// TestEdgeFeatureErrors checks the edge feature checks.
func TestEdgeFeatureErrors(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
	ne := len(testSrc)
	eg := gorgonia.NewGraph()
	plain, err := gat.New(eg, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	edged, err := gat.New(eg, 3, 2, gat.WithEdgeFeatures(2))
	if err != nil {
		t.Fatal(err)
	}
	x := gradcheck.Zeros(eg, tensor.Float32, "x", testN, 3)
	edges := func(l *gat.GATConv, ef *gorgonia.Node) func() (*gorgonia.Node, error) {
		return func() (*gorgonia.Node, error) { y, _, err := l.ForwardEdges(g, x, ef); return y, err }
	}
	layertest.ExpectError(t, "missing", "gat: ", "use ForwardEdges", func() (*gorgonia.Node, error) { return edged.Forward(g, x) })
	layertest.ExpectError(t, "unwanted", "gat: ", "without WithEdgeFeatures", edges(plain, gradcheck.Zeros(eg, tensor.Float32, "ef", ne, 2)))
	layertest.ExpectError(t, "nil", "gat: ", "nil edge features", edges(edged, nil))
	layertest.ExpectError(t, "shape", "gat: ", fmt.Sprintf("want (%d, 2)", ne), edges(edged, gradcheck.Zeros(eg, tensor.Float32, "ef3", ne, 3)))
	layertest.ExpectError(t, "dtype", "gat: ", "dtype", edges(edged, gradcheck.Zeros(eg, tensor.Float64, "ef64", ne, 2)))
	layertest.ExpectError(t, "size", "gat: ", "edge feature size", func() (*gat.GATConv, error) { return gat.New(eg, 3, 2, gat.WithEdgeFeatures(-1)) })
}
