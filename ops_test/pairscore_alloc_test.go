package ops_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// TestPairScoreAllocation checks that the edge scorers of link prediction
// (UDotV, UCosV, DistMult with four relations and with one, over a pair
// graph whose edges are the pairs to score and whose nodes are the
// embedding rows) never form an E x F tensor:
// with 200,000 pairs of 64-dimensional rows, where E x F float32s would be
// 51 MB, a forward and backward step (both operands the same embedding node,
// as a decoder uses them) must allocate well under a quarter of that. The
// scores and their gradient are E floats (0.8 MB each).
func TestPairScoreAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200k-edge graph")
	}
	const n, e, f, nrel = 2000, 200_000, 64, 4
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.CSR()
	g.CSC()
	rel := make([]int32, e)
	for i := range rel {
		rel[i] = int32(i % nrel)
	}
	edgeBytes := uint64(e * f * 4)
	for _, c := range []struct {
		name  string
		score func(h, w *gorgonia.Node) (*gorgonia.Node, error)
	}{
		{"u_dot_v", func(h, _ *gorgonia.Node) (*gorgonia.Node, error) { return ops.UDotV(g, h, h) }},
		{"u_cos_v", func(h, _ *gorgonia.Node) (*gorgonia.Node, error) { return ops.UCosV(g, h, h, 1e-8) }},
		{"distmult", func(h, w *gorgonia.Node) (*gorgonia.Node, error) { return ops.DistMult(g, h, w, h, rel) }},
		{"distmult1", func(h, _ *gorgonia.Node) (*gorgonia.Node, error) {
			w1 := gradcheck.Input(h.Graph(), tensor.Float32, "w1", []int{1, f}, make([]float64, f))
			return ops.DistMult(g, h, w1, h, make([]int32, e))
		}},
	} {
		eg := gorgonia.NewGraph()
		h := gradcheck.Input(eg, tensor.Float32, "h", []int{n, f}, make([]float64, n*f))
		w := gradcheck.Input(eg, tensor.Float32, "w", []int{nrel, f}, make([]float64, nrel*f))
		s, err := c.score(h, w)
		if err != nil {
			t.Fatal(err)
		}
		if sh := s.Shape(); !sh.Eq(tensor.Shape{e, 1}) {
			t.Fatalf("%s: shape %v, want (%d, 1)", c.name, sh, e)
		}
		cost, err := gorgonia.Sum(s)
		if err != nil {
			t.Fatal(err)
		}
		wrt := gorgonia.Nodes{h}
		if c.name == "distmult" {
			wrt = append(wrt, w)
		}
		if _, err := gorgonia.Grad(cost, wrt...); err != nil {
			t.Fatal(err)
		}
		got, allocs := stepBytes(t, eg)
		t.Logf("%s: %d bytes, %.0f allocations per training step (E x F x 4 = %d)", c.name, got, allocs, edgeBytes)
		if got > edgeBytes/4 {
			t.Errorf("%s: a training step allocated %d bytes; E x F x 4 is %d", c.name, got, edgeBytes)
		}
	}
}
