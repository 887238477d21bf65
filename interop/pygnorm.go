package interop

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
)

// PyGSelfLoops returns g with the self-loops PyG's GCNConv adds
// (add_remaining_self_loops): one loop on every node that has none,
// appended after g's edges in increasing node order; nodes with loops
// keep theirs. g must be homogeneous. (PyG's GATConv and GATv2Conv instead
// remove every loop and add one per node: g.RemoveSelfLoops() then
// AddSelfLoops().)
func PyGSelfLoops(g *graph.Graph) (*graph.Graph, error) {
	if g == nil {
		return nil, fmt.Errorf("interop: PyGSelfLoops: nil graph")
	}
	if g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("interop: PyGSelfLoops: the graph has %d sources and %d destinations; self-loops need one node set", g.NumSrc(), g.NumDst())
	}
	s, d := g.COO()
	has := make([]bool, g.NumDst())
	for e := range s {
		if s[e] == d[e] {
			has[s[e]] = true
		}
	}
	src := append([]int32{}, s...)
	dst := append([]int32{}, d...)
	for v, ok := range has {
		if !ok {
			src = append(src, int32(v))
			dst = append(dst, int32(v))
		}
	}
	return graph.FromCOO(g.NumSrc(), g.NumDst(), src, dst)
}

// PyGGCNNorm returns the weight PyG's GCNConv gives every edge u -> v of g
// (gcn_norm, g already holding its self-loops, see PyGSelfLoops):
// deg(u)^-1/2 deg(v)^-1/2, where deg is the in-degree for both ends.
// gnn's GraphConv with norm Both (DGL's) uses the source's out-degree
// instead, which agrees only on symmetric graphs. On a directed graph,
// build the gcn layer WithNorm(gcn.None) and call ForwardWeighted with
// these weights (as an (E, 1) tensor) to get PyG's result.
func PyGGCNNorm(g *graph.Graph) ([]float64, error) {
	if g == nil {
		return nil, fmt.Errorf("interop: PyGGCNNorm: nil graph")
	}
	if g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("interop: PyGGCNNorm: the graph has %d sources and %d destinations; PyG's normalisation reads the in-degree of both ends, so it needs one node set", g.NumSrc(), g.NumDst())
	}
	deg := g.InDegrees()
	s, d := g.COO()
	w := make([]float64, len(s))
	for e := range s {
		// Every edge's ends have in-degree >= 1 at v; u may have none.
		if du := deg[s[e]]; du > 0 {
			w[e] = 1 / math.Sqrt(float64(du)) / math.Sqrt(float64(deg[d[e]]))
		}
	}
	return w, nil
}
