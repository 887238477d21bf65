package interop

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
)

// PyGSelfLoops does to g and its edge weights ew (nil for none) what
// PyG's GCNConv does before normalising (add_remaining_self_loops): it
// removes every self-loop and appends one per node, in node order, after
// the remaining edges; with weights, a node's new loop takes the weight of
// its last removed loop, or fill when it had none (PyG's fill_value: 1, or
// 2 with improved=True). g must be homogeneous. The weights returned
// follow the new graph's edges (nil when ew is nil).
func PyGSelfLoops(g *graph.Graph, ew []float64, fill float64) (*graph.Graph, []float64, error) {
	if g == nil {
		return nil, nil, fmt.Errorf("interop: PyGSelfLoops: nil graph")
	}
	if g.NumSrc() != g.NumDst() {
		return nil, nil, fmt.Errorf("interop: PyGSelfLoops: the graph has %d sources and %d destinations; self-loops need one node set", g.NumSrc(), g.NumDst())
	}
	if ew != nil && len(ew) != g.NumEdges() {
		return nil, nil, fmt.Errorf("interop: PyGSelfLoops: %d edge weights for %d edges", len(ew), g.NumEdges())
	}
	sub, kept := g.RemoveSelfLoops()
	out, err := sub.AddSelfLoops()
	if err != nil {
		return nil, nil, fmt.Errorf("interop: PyGSelfLoops: %w", err)
	}
	if ew == nil {
		return out, nil, nil
	}
	n, e := g.NumDst(), len(kept)
	w := make([]float64, e+n)
	for i, old := range kept {
		w[i] = ew[old]
	}
	loops := w[e:]
	for v := range loops {
		loops[v] = fill
	}
	s, d := g.COO()
	for old := range s {
		if s[old] == d[old] {
			loops[s[old]] = ew[old] // the last loop of a node wins, as in PyG
		}
	}
	return out, w, nil
}

// PyGGCNNorm returns the weight PyG's GCNConv gives every edge u -> v of g
// (gcn_norm, g already holding its self-loops: see PyGSelfLoops):
// deg(u)^-1/2 ew(u,v) deg(v)^-1/2, where deg is the (weighted) in-degree
// for both ends and ew the edge weights (nil: all 1); a node of degree 0
// contributes 0, as in PyG. gnn's GraphConv with norm Both (DGL's) uses
// the source's out-degree instead, which agrees only on symmetric,
// unweighted graphs. Elsewhere build the gcn layer WithNorm(gcn.None) and
// call ForwardWeighted with these weights (as an (E, 1) tensor) to get
// PyG's result. Weights must be finite.
func PyGGCNNorm(g *graph.Graph, ew []float64) ([]float64, error) {
	if g == nil {
		return nil, fmt.Errorf("interop: PyGGCNNorm: nil graph")
	}
	if g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("interop: PyGGCNNorm: the graph has %d sources and %d destinations; PyG's normalisation reads the in-degree of both ends, so it needs one node set", g.NumSrc(), g.NumDst())
	}
	s, d := g.COO()
	if ew != nil && len(ew) != len(s) {
		return nil, fmt.Errorf("interop: PyGGCNNorm: %d edge weights for %d edges", len(ew), len(s))
	}
	weight := func(e int) float64 {
		if ew == nil {
			return 1
		}
		return ew[e]
	}
	deg := make([]float64, g.NumDst())
	for e := range s {
		if w := weight(e); math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("interop: PyGGCNNorm: edge %d (%d -> %d) has weight %v", e, s[e], d[e], w)
		}
		deg[d[e]] += weight(e)
	}
	dis := make([]float64, len(deg))
	for v, x := range deg {
		if x != 0 {
			dis[v] = math.Pow(x, -0.5)
		}
	}
	w := make([]float64, len(s))
	for e := range s {
		w[e] = dis[s[e]] * weight(e) * dis[d[e]]
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
