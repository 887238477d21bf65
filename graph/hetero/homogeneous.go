package hetero

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
)

// Homogeneous is a heterograph as one homogeneous graph with type columns
// (DGL's to_homogeneous with its NTYPE, NID, ETYPE and EID fields). Node
// type i holds the homogeneous nodes NodeOffsets[i] to NodeOffsets[i+1]-1,
// edge type j the edges EdgeOffsets[j] to EdgeOffsets[j+1]-1, in the order
// of its relation's edge IDs. The slices belong to the Homogeneous value.
type Homogeneous struct {
	Graph *graph.Graph

	NodeType []int32 // node type ID of each homogeneous node
	NodeID   []int32 // ID of each homogeneous node within its type
	EdgeType []int32 // edge type ID of each homogeneous edge
	EdgeID   []int64 // ID of each homogeneous edge within its relation

	NodeOffsets []int // len NumNodeTypes+1
	EdgeOffsets []int // len NumEdgeTypes+1
}

// ToHomogeneous returns h as one homogeneous graph with type columns, as
// DGL's to_homogeneous numbers it (see the package documentation). It
// returns an error when h has more than graph.MaxNodes nodes or
// graph.MaxEdges edges in all.
func (h *Graph) ToHomogeneous() (*Homogeneous, error) {
	n, m := h.TotalNodes(), h.TotalEdges()
	if n > graph.MaxNodes {
		return nil, fmt.Errorf("hetero: %d nodes in all exceed graph.MaxNodes (%d)", n, graph.MaxNodes)
	}
	if m > graph.MaxEdges {
		return nil, fmt.Errorf("hetero: %d edges in all exceed graph.MaxEdges (%d)", m, graph.MaxEdges)
	}
	out := &Homogeneous{
		NodeType: make([]int32, 0, n), NodeID: make([]int32, 0, n),
		EdgeType: make([]int32, 0, m), EdgeID: make([]int64, 0, m),
		NodeOffsets: make([]int, len(h.ntypes)+1), EdgeOffsets: make([]int, len(h.etypes)+1),
	}
	for i, c := range h.counts {
		out.NodeOffsets[i+1] = out.NodeOffsets[i] + c
		for v := range c {
			out.NodeType = append(out.NodeType, int32(i))
			out.NodeID = append(out.NodeID, int32(v))
		}
	}
	src, dst := make([]int32, 0, m), make([]int32, 0, m)
	for j, g := range h.rels {
		out.EdgeOffsets[j+1] = out.EdgeOffsets[j] + g.NumEdges()
		so, do := int32(out.NodeOffsets[h.src[j]]), int32(out.NodeOffsets[h.dst[j]])
		s, d := g.COO()
		for e := range s {
			src, dst = append(src, s[e]+so), append(dst, d[e]+do)
			out.EdgeType = append(out.EdgeType, int32(j))
			out.EdgeID = append(out.EdgeID, int64(e))
		}
	}
	g, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		return nil, fmt.Errorf("hetero: ToHomogeneous: %w", err)
	}
	out.Graph = g
	return out, nil
}

// Split is a homogeneous graph split by type: the heterograph and, for
// every node and edge type of it (by its type ID in Graph), the
// homogeneous IDs of its nodes and edges (DGL's NID and EID fields).
type Split struct {
	Graph   *Graph
	NodeIDs [][]int32 // NodeIDs[i][v]: homogeneous ID of node v of type i
	EdgeIDs [][]int64 // EdgeIDs[j][e]: homogeneous ID of edge e of type j
}

// ToHeterogeneous splits the homogeneous graph g by its type columns (DGL's
// to_heterogeneous): node v has type ntypes[nodeType[v]] and edge e type
// etypes[edgeType[e]]. The nodes and edges of each type are numbered in
// increasing homogeneous ID, so ToHeterogeneous inverts ToHomogeneous.
// Type IDs in the result are those of the sorted types, which may differ
// from the positions in ntypes and etypes.
//
// Unlike DGL, which splits an edge type whose edges join several pairs of
// node types, the edge types here are canonical: every edge's endpoints
// must have the types its edge type names. ToHeterogeneous returns an
// error naming the first node or edge at fault when the columns' lengths
// differ from the graph's sizes, a type ID is out of range, a type is
// named twice, an edge type's node type is not in ntypes, or an edge's
// endpoint has another type than its edge type's.
func ToHeterogeneous(g *graph.Graph, nodeType, edgeType []int32, ntypes []string, etypes []EdgeType) (*Split, error) {
	if g == nil {
		return nil, fmt.Errorf("hetero: ToHeterogeneous: nil graph")
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("hetero: ToHeterogeneous: graph has %d source and %d destination nodes; it must be homogeneous", g.NumSrc(), g.NumDst())
	}
	if len(nodeType) != g.NumSrc() {
		return nil, fmt.Errorf("hetero: ToHeterogeneous: %d node types for %d nodes", len(nodeType), g.NumSrc())
	}
	if len(edgeType) != g.NumEdges() {
		return nil, fmt.Errorf("hetero: ToHeterogeneous: %d edge types for %d edges", len(edgeType), g.NumEdges())
	}
	ntypeIdx := make(map[string]int, len(ntypes))
	for i, name := range ntypes {
		if j, dup := ntypeIdx[name]; dup {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: ntypes[%d] = %q repeats ntypes[%d]", i, name, j)
		}
		ntypeIdx[name] = i
	}
	etypeSrc, etypeDst := make([]int32, len(etypes)), make([]int32, len(etypes))
	seen := make(map[EdgeType]int, len(etypes))
	for j, t := range etypes {
		if k, dup := seen[t]; dup {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: etypes[%d] = %s repeats etypes[%d]", j, t, k)
		}
		seen[t] = j
		s, ok := ntypeIdx[t.Src]
		d, ok2 := ntypeIdx[t.Dst]
		if !ok || !ok2 {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: etypes[%d] = %s names a node type not in ntypes", j, t)
		}
		etypeSrc[j], etypeDst[j] = int32(s), int32(d)
	}

	// Per-type IDs in increasing homogeneous order.
	local := make([]int32, len(nodeType))
	counts := make([]int, len(ntypes))
	nodeIDs := make([][]int32, len(ntypes))
	for v, t := range nodeType {
		if t < 0 || int(t) >= len(ntypes) {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: node %d has type %d but there are %d node types", v, t, len(ntypes))
		}
		local[v] = int32(counts[t])
		counts[t]++
		nodeIDs[t] = append(nodeIDs[t], int32(v))
	}
	srcs, dsts := make([][]int32, len(etypes)), make([][]int32, len(etypes))
	edgeIDs := make([][]int64, len(etypes))
	s, d := g.COO()
	for e, t := range edgeType {
		if t < 0 || int(t) >= len(etypes) {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: edge %d has type %d but there are %d edge types", e, t, len(etypes))
		}
		if nodeType[s[e]] != etypeSrc[t] || nodeType[d[e]] != etypeDst[t] {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: edge %d (%d -> %d) has type %s but joins nodes of types %q and %q",
				e, s[e], d[e], etypes[t], ntypes[nodeType[s[e]]], ntypes[nodeType[d[e]]])
		}
		srcs[t] = append(srcs[t], local[s[e]])
		dsts[t] = append(dsts[t], local[d[e]])
		edgeIDs[t] = append(edgeIDs[t], int64(e))
	}

	nodes := make(map[string]int, len(ntypes))
	for i, name := range ntypes {
		nodes[name] = counts[i]
	}
	rels := make(map[EdgeType]*graph.Graph, len(etypes))
	for j, t := range etypes {
		r, err := graph.FromCOO(counts[etypeSrc[j]], counts[etypeDst[j]], srcs[j], dsts[j])
		if err != nil {
			return nil, fmt.Errorf("hetero: ToHeterogeneous: edge type %s: %w", t, err)
		}
		rels[t] = r
	}
	h, err := New(nodes, rels)
	if err != nil {
		return nil, fmt.Errorf("hetero: ToHeterogeneous: %w", err)
	}
	out := &Split{Graph: h, NodeIDs: make([][]int32, len(ntypes)), EdgeIDs: make([][]int64, len(etypes))}
	for i, name := range ntypes {
		id, _ := h.nodeTypeID(name)
		out.NodeIDs[id] = nonNil(nodeIDs[i])
	}
	for j, t := range etypes {
		id, _ := h.EdgeTypeID(t)
		out.EdgeIDs[id] = nonNil(edgeIDs[j])
	}
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
