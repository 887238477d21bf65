package graph

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/internal/enum"
	"github.com/gnngo/gnn/internal/parallel"
)

// The transforms below return new graphs with new IDs and their own storage;
// the receiver is never changed. Edge-ID maps are returned where edges are
// dropped or merged, so edge features can follow (gather with the map).

// AddSelfLoops returns a copy of a homogeneous graph with one self-loop
// added on every node, as DGL's add_self_loop does: edges 0 to E-1 are the
// receiver's, with their IDs unchanged, and edge E+i is the loop on node i.
// Nodes that already have loops get another one; call RemoveSelfLoops first
// for exactly one loop per node. It returns an error when the graph is not
// homogeneous or the result would have more edges than an int can count.
func (g *Graph) AddSelfLoops() (*Graph, error) {
	if err := g.checkHomogeneous("AddSelfLoops"); err != nil {
		return nil, err
	}
	n, e := g.NumSrc(), g.NumEdges()
	if e > math.MaxInt-n {
		return nil, fmt.Errorf("graph: AddSelfLoops: %d edges plus %d loops overflow int", e, n)
	}
	s, d := g.COO()
	src := make([]int32, e+n)
	dst := make([]int32, e+n)
	copy(src, s)
	copy(dst, d)
	for i := range n {
		src[e+i], dst[e+i] = int32(i), int32(i)
	}
	return newGraph(n, n, src, dst), nil
}

// RemoveSelfLoops returns a copy of the graph without the edges whose source
// and destination IDs are equal, keeping the others in edge-ID order, and
// kept, which maps each new edge ID to the receiver's: kept[i] is the parent
// of edge i. On a bipartite graph an edge u -> u counts as a loop too, which
// matches message-flow blocks, where the first NumDst sources are the
// destinations.
func (g *Graph) RemoveSelfLoops() (sub *Graph, kept []int64) {
	s, d := g.COO()
	kept = make([]int64, 0, len(s))
	for e := range s {
		if s[e] != d[e] {
			kept = append(kept, int64(e))
		}
	}
	src := make([]int32, len(kept))
	dst := make([]int32, len(kept))
	for i, e := range kept {
		src[i], dst[i] = s[e], d[e]
	}
	return newGraph(g.NumSrc(), g.NumDst(), src, dst), kept
}

// ToSimple returns the graph with parallel edges merged into one (DGL
// to_simple), the multiplicity of every new edge, and the map from every
// receiver edge to the new edge it was merged into (DGL's writeback mapping):
// counts[edgeMap[e]] counts e and its parallel edges.
//
// The edges of the result are sorted by (source, destination), so edge IDs
// change even on a graph that was already simple; its CSR rows are sorted by
// destination. Self-loops are kept, merged like any other edge. ToSimple works
// on bipartite graphs and costs O(NumEdges + NumSrc + NumDst).
func (g *Graph) ToSimple() (simple *Graph, counts []int64, edgeMap []int64) {
	s, d := g.COO()
	order := sortBySrcDst(g.NumSrc(), g.NumDst(), s, d)
	same := func(a, b int64) bool { return s[a] == s[b] && d[a] == d[b] }
	m := 0
	for i, e := range order {
		if i == 0 || !same(order[i-1], e) {
			m++
		}
	}
	src := make([]int32, m)
	dst := make([]int32, m)
	counts = make([]int64, m)
	edgeMap = make([]int64, len(s))
	k := -1
	for i, e := range order {
		if i == 0 || !same(order[i-1], e) {
			k++
			src[k], dst[k] = s[e], d[e]
		}
		counts[k]++
		edgeMap[e] = int64(k)
	}
	return newGraph(g.NumSrc(), g.NumDst(), src, dst), counts, edgeMap
}

// ToBidirected returns the simple graph that has edges u -> v and v -> u
// whenever the receiver has an edge between u and v in either direction
// (DGL to_bidirected): parallel edges are merged, and a self-loop appears
// once. Edges are sorted by (source, destination), as with ToSimple. It
// returns an error when the graph is not homogeneous.
func (g *Graph) ToBidirected() (*Graph, error) {
	if err := g.checkHomogeneous("ToBidirected"); err != nil {
		return nil, err
	}
	s, d := g.COO()
	e := len(s)
	src := make([]int32, 2*e)
	dst := make([]int32, 2*e)
	copy(src, s)
	copy(src[e:], d)
	copy(dst, d)
	copy(dst[e:], s)
	n := g.NumSrc()
	simple, _, _ := newGraph(n, n, src, dst).ToSimple()
	return simple, nil
}

// sortBySrcDst returns the edge IDs ordered by (src, dst, ID): two stable
// counting sorts, by destination and then by source.
func sortBySrcDst(numSrc, numDst int, src, dst []int32) []int64 {
	byDst := countingSort(numDst, dst, nil)
	return countingSort(numSrc, src, byDst)
}

// countingSort returns the IDs in order (or 0..len(keys)-1 when order is nil)
// stably sorted by keys[id], each key in [0, n).
func countingSort(n int, keys []int32, order []int64) []int64 {
	start := make([]int64, n+1)
	for _, k := range keys {
		start[k+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	out := make([]int64, len(keys))
	if order == nil {
		for e, k := range keys {
			out[start[k]] = int64(e)
			start[k]++
		}
		return out
	}
	for _, e := range order {
		k := keys[e]
		out[start[k]] = e
		start[k]++
	}
	return out
}

func (g *Graph) checkHomogeneous(op string) error {
	if !g.Homogeneous() {
		return fmt.Errorf("graph: %s needs a homogeneous graph, got %d source and %d destination nodes", op, g.NumSrc(), g.NumDst())
	}
	return nil
}

// EdgeOrder names an edge numbering for ReorderEdges.
type EdgeOrder int

const (
	// ByDst numbers the edges grouped by destination, as the CSC view
	// lists them.
	ByDst EdgeOrder = iota
	// BySrc numbers the edges grouped by source, as the CSR view lists
	// them.
	BySrc
)

// String returns "dst" or "src".
func (o EdgeOrder) String() string {
	return enum.Name(o, "EdgeOrder", "dst", "src")
}

// ReorderEdges returns a copy of the graph whose edges are renumbered so
// that the edges of every destination (ByDst) or source (BySrc) have
// consecutive IDs, in the order of their old IDs, and perm, where perm[i]
// is the receiver's ID of the new edge i (DGL's reorder_graph with
// edge_permute_algo "dst" or "src"). Nodes keep their IDs. Per-edge data
// must be permuted with perm to follow.
//
// Kernels that visit edges through a view and read one row per edge (edge
// softmax, GAT attention, u_mul_e with edge weights) then read those rows
// in memory order instead of at random. The copy's view for the order is
// built from the receiver's without sorting, and shares its row pointers.
func (g *Graph) ReorderEdges(order EdgeOrder) (reordered *Graph, perm []int64, err error) {
	var c *Compressed
	switch order {
	case ByDst:
		c = g.CSC()
	case BySrc:
		c = g.CSR()
	default:
		return nil, nil, fmt.Errorf("graph: ReorderEdges: unknown %v", order)
	}
	e := g.NumEdges()
	other := append([]int32(nil), c.Indices...)
	rows := make([]int32, e)
	ids := make([]int32, e)
	perm = make([]int64, e)
	parallel.For(c.NumRows(), 1<<12, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for p := c.Indptr[r]; p < c.Indptr[r+1]; p++ {
				rows[p] = int32(r)
				ids[p] = int32(p)
				perm[p] = int64(c.EIDs[p])
			}
		}
	})
	view := &Compressed{Indptr: c.Indptr, Indices: other, EIDs: ids, Ordered: true}
	if order == ByDst {
		reordered = newGraph(g.NumSrc(), g.NumDst(), other, rows)
		reordered.s.byDstOnce.Do(func() { reordered.s.byDst = view })
	} else {
		reordered = newGraph(g.NumSrc(), g.NumDst(), rows, other)
		reordered.s.bySrcOnce.Do(func() { reordered.s.bySrc = view })
	}
	return reordered, perm, nil
}
