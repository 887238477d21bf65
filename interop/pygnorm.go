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

// PyGAttentionLoops does to g and its edge features what PyG's GATConv and
// GATv2Conv do before attending (add_self_loops=True): it removes every
// self-loop and adds one per node after the remaining edges, in node
// order, and gives each added loop the mean of the features of the node's
// remaining in-edges (PyG's default fill_value="mean"; zeros for a node
// without any). ef holds d features per edge of g in edge-ID order (nil
// with d = 0 for none); the result's features follow the new graph's
// edges.
func PyGAttentionLoops(g *graph.Graph, ef []float64, d int) (*graph.Graph, []float64, error) {
	if g == nil {
		return nil, nil, fmt.Errorf("interop: PyGAttentionLoops: nil graph")
	}
	if g.NumSrc() != g.NumDst() {
		return nil, nil, fmt.Errorf("interop: PyGAttentionLoops: the graph has %d sources and %d destinations; self-loops need one node set", g.NumSrc(), g.NumDst())
	}
	if d < 0 || len(ef) != g.NumEdges()*d {
		return nil, nil, fmt.Errorf("interop: PyGAttentionLoops: %d edge feature values for %d edges of %d features", len(ef), g.NumEdges(), d)
	}
	sub, kept := g.RemoveSelfLoops()
	out, err := sub.AddSelfLoops()
	if err != nil {
		return nil, nil, fmt.Errorf("interop: PyGAttentionLoops: %w", err)
	}
	if d == 0 {
		return out, nil, nil
	}
	n, e := g.NumDst(), len(kept)
	feats := make([]float64, (e+n)*d)
	sum := feats[e*d:] // the loops' rows, node by node
	count := make([]int, n)
	_, dst := sub.COO()
	for i, old := range kept {
		row := ef[int(old)*d : int(old+1)*d]
		copy(feats[i*d:], row)
		v := int(dst[i])
		count[v]++
		for k, x := range row {
			sum[v*d+k] += x
		}
	}
	for v, c := range count {
		for k := range d {
			if c > 0 {
				sum[v*d+k] /= float64(c)
			}
		}
	}
	return out, feats, nil
}
