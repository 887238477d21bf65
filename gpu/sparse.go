//go:build gnncuda

package gpu

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// placedGraph is a graph's structure on the device.
type placedGraph struct{}

// errSparse says the graph kernels are not wired in yet.
var errSparse = fmt.Errorf("gpu: graph kernels (gpu/internal/sparse) are not available yet")

func (d *Device) graph(g *graph.Graph) (*placedGraph, error) {
	if g == nil {
		return nil, fmt.Errorf("gpu: nil graph")
	}
	return nil, errSparse
}

func (b backend) SpMM(out *tensor.Dense, g *graph.Graph, op spmm.Op, red spmm.Reduce, u, e *tensor.Dense, p bcast.Plan) error {
	return errSparse
}

func (b backend) SDDMM(out *tensor.Dense, g *graph.Graph, op sddmm.Op, lhs *tensor.Dense, lt sddmm.Target, rhs *tensor.Dense, rt sddmm.Target, p bcast.Plan) error {
	return errSparse
}

func (b backend) Attention(out *tensor.Dense, g *graph.Graph, el, er *tensor.Dense, slope float64, width int) error {
	return errSparse
}

func (b backend) AttentionBackward(ds *tensor.Dense, g *graph.Graph, el, er *tensor.Dense, slope float64, y, dy *tensor.Dense, width int) error {
	return errSparse
}
