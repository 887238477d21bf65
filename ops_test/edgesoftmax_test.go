package ops_test

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
	"github.com/gnngo/gnn/ops"
)

func TestEdgeSoftmax(t *testing.T) {
	t.Parallel()
	seed := uint64(500)
	for gname, g := range gradcheck.Fixtures(t) {
		for _, norm := range []ops.Norm{ops.ByDst, ops.BySrc} {
			for _, shape := range [][]int{{}, {1}, {2, 1}, {3}} {
				for _, dt := range gradcheck.Dtypes {
					seed++
					name := fmt.Sprintf("%s/%v/%v/%v", gname, norm, shape, dt)
					spec := []operand{{ops.E, shape}}
					build := func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
						return ops.EdgeSoftmax(g, in[0], norm)
					}
					t.Run(name, func(t *testing.T) {
						r := rand.New(rand.NewPCG(seed, 1))
						vals := [][]float64{gradcheck.Draw(r, g.NumEdges()*size(shape))}
						got, _ := forward(t, g, dt, spec, vals, build)
						want := refEdgeSoftmax(g, norm, vals[0], size(shape))
						if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
							t.Errorf("element %d = %v, want %v", i, got[i], want[i])
						}
						gradCheck(t, g, dt, spec, build, seed)
					})
				}
			}
		}
	}
}

// TestGATAttention checks the fused op against the composition it replaces
// (UAddV, LeakyRelu, EdgeSoftmax), forward, and its gradients by finite
// differences through a UMulESum, as a GAT layer uses it: with 2 heads of
// 3 features, and with 4 heads of 2 (the narrow-head vector kernels of the
// attention and of the sum in float32).
func TestGATAttention(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ heads, d int }{{2, 3}, {4, 2}} {
		t.Run(fmt.Sprintf("heads=%dx%d", c.heads, c.d), func(t *testing.T) { testGATAttention(t, c.heads, c.d) })
	}
}

func testGATAttention(t *testing.T, heads, d int) {
	const slope = 0.2
	spec := []operand{
		{ops.U, []int{heads, d}}, // projected features
		{ops.U, []int{heads, 1}}, // el
		{ops.V, []int{heads, 1}}, // er
	}
	composed := func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		s, err := ops.UAddV(g, in[1], in[2])
		if err != nil {
			return nil, err
		}
		if s, err = gorgonia.LeakyRelu(s, slope); err != nil {
			return nil, err
		}
		return ops.EdgeSoftmax(g, s, ops.ByDst)
	}
	fused := func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		return ops.GATAttention(g, in[1], in[2], slope)
	}
	layer := func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		a, err := fused(g, in)
		if err != nil {
			return nil, err
		}
		return ops.UMulESum(g, in[0], a)
	}
	seed := uint64(900)
	for gname, g := range gradcheck.Fixtures(t) {
		if g.NumEdges() == 0 {
			continue
		}
		for _, dt := range gradcheck.Dtypes {
			seed++
			t.Run(fmt.Sprintf("%s/%v", gname, dt), func(t *testing.T) {
				vals := draw(rand.New(rand.NewPCG(seed, 1)), g, spec)
				got, _ := forward(t, g, dt, spec, vals, fused)
				want, _ := forward(t, g, dt, spec, vals, composed)
				if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
					t.Errorf("element %d = %v, composed ops give %v", i, got[i], want[i])
				}
				gradCheck(t, g, dt, spec, layer, seed)
			})
		}
	}
}

// TestGATAttentionErrors checks the shape, dtype and graph checks.
func TestGATAttentionErrors(t *testing.T) {
	g := gradcheck.Fixtures(t)["bipartite"]
	eg := gorgonia.NewGraph()
	node := func(dt tensor.Dtype, shape ...int) *gorgonia.Node {
		return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...))
	}
	ns, nd := g.NumSrc(), g.NumDst()
	for _, c := range []struct {
		name   string
		el, er *gorgonia.Node
		slope  float64
		want   string
	}{
		{"el rows", node(tensor.Float32, ns+1, 2, 1), node(tensor.Float32, nd, 2, 1), 0.2, "rows"},
		{"er rows", node(tensor.Float32, ns, 2, 1), node(tensor.Float32, nd+1, 2, 1), 0.2, "rows"},
		{"features", node(tensor.Float32, ns, 2, 1), node(tensor.Float32, nd, 3, 1), 0.2, "features"},
		{"dtype", node(tensor.Float32, ns, 2, 1), node(tensor.Float64, nd, 2, 1), 0.2, "dtype"},
		{"slope", node(tensor.Float32, ns, 2, 1), node(tensor.Float32, nd, 2, 1), math.NaN(), "slope"},
	} {
		if _, err := ops.GATAttention(g, c.el, c.er, c.slope); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	if _, err := ops.GATAttention(nil, nil, nil, 0.2); err == nil {
		t.Error("nil graph: no error")
	}
}

// TestGATChain checks the gradient of the composition a GAT layer is made of:
// per-head attention logits el[u] + er[v], LeakyReLU, edge softmax, and the
// attention-weighted sum of source features.
func TestGATChain(t *testing.T) {
	t.Parallel()
	const heads, d = 2, 3
	spec := []operand{
		{ops.U, []int{heads, d}}, // projected features
		{ops.U, []int{heads, 1}}, // el
		{ops.V, []int{heads, 1}}, // er
	}
	build := func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		s, err := ops.UAddV(g, in[1], in[2])
		if err != nil {
			return nil, err
		}
		if s, err = gorgonia.LeakyRelu(s, 0.2); err != nil {
			return nil, err
		}
		a, err := ops.EdgeSoftmax(g, s, ops.ByDst)
		if err != nil {
			return nil, err
		}
		return ops.UMulESum(g, in[0], a)
	}
	for gname, g := range gradcheck.Fixtures(t) {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", gname, dt), func(t *testing.T) {
				gradCheck(t, g, dt, spec, build, 77)
			})
		}
	}
}
