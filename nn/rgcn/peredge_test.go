package rgcn_test

import (
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/rgcn"
)

// TestPerEdgeErrors checks that PerEdge refuses what it cannot compute,
// naming what was wrong.
func TestPerEdgeErrors(t *testing.T) {
	g, err := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{1, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 2), gorgonia.WithName("x"))
	w := gorgonia.NewTensor(eg, tensor.Float64, 3, gorgonia.WithShape(2, 2, 2), gorgonia.WithName("w"))
	loop := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("loop"))
	bias := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(2), gorgonia.WithName("bias"))
	norm := []float64{1, 1, 1}
	for _, c := range []struct {
		name string
		et   []int32
		norm []float64
		w    *gorgonia.Node
		want string
	}{
		{"short types", []int32{0, 1}, norm, w, "2 edge types and 3 norms"},
		{"short norms", []int32{0, 0, 1}, norm[:1], w, "3 edge types and 1 norms"},
		{"unsorted", []int32{1, 0, 1}, norm, w, "edge 1 has relation 0 after relation 1"},
		{"relation out of range", []int32{0, 1, 2}, norm, w, "the weights hold 2"},
		{"matrix weights", []int32{0, 0, 0}, norm, loop, "want (relations, in, out)"},
	} {
		if _, err := rgcn.PerEdge(g, c.et, c.norm, x, c.w, loop, bias); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
