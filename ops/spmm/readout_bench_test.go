package spmm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
)

// BenchmarkReadout is the per-graph readout of graph classification
// (ops.ReadoutNodes): copy_u sum and max over the readout graph of a batch
// of 50,000 graphs of 20 nodes (a million node rows of 64 float32), the
// segment reduction the readout ops run. GB/s counts the node rows read,
// the output and the CSC arrays, as BenchmarkSpMM does.
func BenchmarkReadout(b *testing.B) {
	const graphs, nodes, dim = 50_000, 20, 64
	gs := make([]*graph.Graph, graphs)
	for i := range gs {
		g, err := graph.FromCOO(nodes, nodes, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		gs[i] = g
	}
	batch, err := graph.Batch(gs)
	if err != nil {
		b.Fatal(err)
	}
	g := batch.Readout()
	g.CSC()
	p := bcast.Same([]int{dim})
	u := kerneltest.Uniform[float32](rand.New(rand.NewPCG(1, 2)), g.NumSrc()*dim, -1, 1)
	for _, red := range []Reduce{Sum, Max} {
		b.Run(fmt.Sprintf("red=%v/graphs=%d/nodes=%d/dim=%d", red, graphs, nodes, dim), func(b *testing.B) {
			out := make([]float32, graphs*dim)
			var arg []int64
			if red == Max {
				arg = make([]int64, len(out))
			}
			bytes := int64(len(u)+len(out))*benchSize + int64(g.NumEdges())*4 + int64(graphs+1)*8 + int64(len(arg))*8
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				Forward(out, g, CopyU, red, u, nil, p, arg)
			}
			reportThroughput(b, bytes, g.NumEdges(), cpu0)
			bench.sink += out[0]
		})
	}
}
