package sampling

import (
	"fmt"
	"slices"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/parallel"
)

// ReverseEdgeIDs returns the reverse edge of every edge of the homogeneous
// graph g, for EdgeLoaderOptions.ReverseEdgeIDs: an undirected graph stored
// with both directions (DGL's to_bidirected, OGB's add_inverse_edge, PyG's
// to_undirected) pairs each edge u -> v with an edge v -> u. Parallel edges
// are paired in order: the k-th edge u -> v (by edge ID) with the k-th
// edge v -> u; an edge left without a partner gets -1, and a self-loop is
// its own reverse. The result does not depend on GOMAXPROCS.
//
// A graph built as edges 0..E-1 followed by their reverses E..2E-1 (DGL's
// add_reverse_edges) needs no search: edge i's reverse is i+E and back.
// For a heterograph, see ReverseRelationEdgeIDs.
//
// It costs O(E log d) for mean degree d and 8 bytes per edge beside the
// result and g's CSR, and returns an error for a graph that is not
// homogeneous or has no edges.
func ReverseEdgeIDs(g *graph.Graph) ([]int64, error) {
	if g == nil {
		return nil, fmt.Errorf("sampling: nil graph")
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("sampling: reverse edges of graph %v, which is not homogeneous", g)
	}
	if g.NumEdges() == 0 {
		return nil, fmt.Errorf("sampling: reverse edges of graph %v, which has no edges", g)
	}
	csr := g.CSR()
	n := g.NumNodes()
	// keys holds every row of the CSR sorted by (destination, edge ID),
	// each key destination<<32 | edge ID.
	keys := make([]uint64, g.NumEdges())
	rev := make([]int64, g.NumEdges())
	parallel.For(n, 1024, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			a, b := csr.Row(u)
			row := keys[a:b]
			for p := a; p < b; p++ {
				row[p-a] = uint64(csr.Indices[p])<<32 | uint64(csr.EIDs[p])
			}
			slices.Sort(row)
		}
	})
	parallel.For(len(rev), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			rev[i] = -1
		}
	})
	// Row u pairs its edges u -> v, v > u, with row v's edges v -> u and
	// writes the reverse of both, so every edge is written by one row.
	parallel.For(n, 1024, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			a, b := csr.Row(u)
			row := keys[a:b]
			// Skip the edges to nodes below u: their rows pair them.
			i, _ := slices.BinarySearch(row, uint64(u)<<32)
			for i < len(row) {
				v := row[i] >> 32
				j := i + 1
				for j < len(row) && row[j]>>32 == v {
					j++
				}
				run := row[i:j]
				i = j
				if v == uint64(u) {
					for _, k := range run {
						rev[uint32(k)] = int64(uint32(k))
					}
					continue
				}
				va, vb := csr.Row(int(v))
				vrow := keys[va:vb]
				s, _ := slices.BinarySearch(vrow, uint64(u)<<32)
				for k := 0; k < len(run) && s+k < len(vrow) && vrow[s+k]>>32 == uint64(u); k++ {
					e, r := int64(uint32(run[k])), int64(uint32(vrow[s+k]))
					rev[e], rev[r] = r, e
				}
			}
		}
	})
	return rev, nil
}

// ReverseRelationEdgeIDs returns EdgeLoaderOptions.ReverseEdgeIDs for hom,
// the homogeneous form of the heterograph h (h.ToHomogeneous()), whose
// relations come in pairs stored as hetero.Graph.AddReverse builds them
// (DGL's reverse_etypes): relation reverse[t] is t reversed edge for edge,
// its edge i being edge i of t with source and destination swapped. Edge i
// of t (homogeneous ID hom.EdgeOffsets[t]+i) and edge i of reverse[t] are
// each other's reverse; the edges of relations not in reverse, as key or
// value, get -1. Naming a pair once, in either direction, is enough.
//
// Sampling h with an EdgeLoader then runs on hom.Graph: seed edges are
// homogeneous edge IDs, hom.EdgeOffsets[t] plus the relation's edge IDs,
// and ExcludeReverse keeps the reverse relation's edges out of the blocks
// (DGL's exclude="reverse_types"). ReverseEdgeIDs on hom.Graph would pair
// edges by their endpoints across all relations instead.
//
// It returns an error naming the relation for an unknown relation, a
// relation paired with two others, hom not being h's, relations of
// different edge counts or node types, and an edge whose reverse does not
// have its endpoints swapped.
func ReverseRelationEdgeIDs(h *hetero.Graph, hom *hetero.Homogeneous, reverse map[hetero.EdgeType]hetero.EdgeType) ([]int64, error) {
	if h == nil || hom == nil || hom.Graph == nil {
		return nil, fmt.Errorf("sampling: nil heterograph or homogeneous graph")
	}
	if len(hom.EdgeOffsets) != h.NumEdgeTypes()+1 || hom.Graph.NumEdges() != h.TotalEdges() {
		return nil, fmt.Errorf("sampling: homogeneous graph of %d edge types and %d edges is not that of %v",
			len(hom.EdgeOffsets)-1, hom.Graph.NumEdges(), h)
	}
	et := h.EdgeTypes()
	partner := make([]int, len(et))
	for i := range partner {
		partner[i] = -1
	}
	// Pairs in a fixed order, so that the error reported is too.
	fwds := make([]hetero.EdgeType, 0, len(reverse))
	for t := range reverse {
		fwds = append(fwds, t)
	}
	slices.SortFunc(fwds, hetero.EdgeType.Compare)
	for _, t := range fwds {
		r := reverse[t]
		ti, err := h.EdgeTypeID(t)
		if err != nil {
			return nil, fmt.Errorf("sampling: reverse relations: %w", err)
		}
		ri, err := h.EdgeTypeID(r)
		if err != nil {
			return nil, fmt.Errorf("sampling: reverse relations: %w", err)
		}
		for _, p := range [][2]int{{ti, ri}, {ri, ti}} {
			if partner[p[0]] >= 0 && partner[p[0]] != p[1] {
				return nil, fmt.Errorf("sampling: relation %v is the reverse of both %v and %v",
					et[p[0]], et[partner[p[0]]], et[p[1]])
			}
			partner[p[0]] = p[1]
		}
		if t.Src != r.Dst || t.Dst != r.Src {
			return nil, fmt.Errorf("sampling: relation %v cannot be the reverse of %v: node types not swapped", r, t)
		}
	}
	rev := make([]int64, h.TotalEdges())
	for i := range rev {
		rev[i] = -1
	}
	for t, r := range partner {
		if r < 0 {
			continue
		}
		gt, gr := h.RelationAt(t), h.RelationAt(r)
		if hom.EdgeOffsets[t+1]-hom.EdgeOffsets[t] != gt.NumEdges() {
			return nil, fmt.Errorf("sampling: homogeneous graph's relation %v has %d edges, the heterograph's %d",
				et[t], hom.EdgeOffsets[t+1]-hom.EdgeOffsets[t], gt.NumEdges())
		}
		if gt.NumEdges() != gr.NumEdges() {
			return nil, fmt.Errorf("sampling: relation %v has %d edges but its reverse %v has %d", et[t], gt.NumEdges(), et[r], gr.NumEdges())
		}
		ts, td := gt.COO()
		rs, rd := gr.COO()
		for i := range ts {
			if ts[i] != rd[i] || td[i] != rs[i] {
				return nil, fmt.Errorf("sampling: edge %d of %v is %d -> %d but edge %d of its reverse %v is %d -> %d",
					i, et[t], ts[i], td[i], i, et[r], rs[i], rd[i])
			}
			rev[hom.EdgeOffsets[t]+i] = int64(hom.EdgeOffsets[r] + i)
		}
	}
	return rev, nil
}
