package ops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/gradcheck"
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
