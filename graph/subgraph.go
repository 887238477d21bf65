package graph

import (
	"fmt"
	"slices"
)

// Subgraph is a graph cut out of a parent graph, with the maps from its node
// and edge IDs back to the parent's, so features can be gathered: row i of
// the subgraph's node features is row NodeIDs[i] of the parent's.
//
// Subgraphs are homogeneous, like the graphs they are taken from. The maps
// belong to the Subgraph and must not be modified.
type Subgraph struct {
	*Graph

	// NodeIDs maps each subgraph node to its parent node.
	NodeIDs []int32
	// EdgeIDs maps each subgraph edge to its parent edge.
	EdgeIDs []int64
}

// NodeSubgraph returns the subgraph induced by nodes (DGL node_subgraph): node
// i of the subgraph is parent node nodes[i], and every parent edge whose two
// endpoints are in nodes is kept, in increasing parent edge-ID order. nodes is
// copied. It costs O(NumNodes) plus, for a small node set, the out-degrees of
// nodes and a sort of the kept edges, or one pass over all edges for a large
// one. It returns an error when the graph is not homogeneous, or naming the
// first position of nodes that is out of range or repeats an earlier one.
func (g *Graph) NodeSubgraph(nodes []int32) (*Subgraph, error) {
	if err := g.checkHomogeneous("NodeSubgraph"); err != nil {
		return nil, err
	}
	n := g.NumSrc()
	newID := make([]int32, n)
	for i := range newID {
		newID[i] = -1
	}
	var deg int64
	c := g.CSR()
	for i, v := range nodes {
		if v < 0 || int(v) >= n {
			return nil, fmt.Errorf("graph: nodes[%d] = %d but the graph has %d nodes", i, v, n)
		}
		if j := newID[v]; j >= 0 {
			return nil, fmt.Errorf("graph: nodes[%d] = %d repeats nodes[%d]", i, v, j)
		}
		newID[v] = int32(i)
		deg += int64(c.Degree(int(v)))
	}

	s, d := g.COO()
	var eids []int64
	if deg > int64(len(s))/8 {
		// Most edges are candidates: one pass over the COO lists is
		// cheaper than sorting the selected rows' edge IDs.
		for e := range s {
			if newID[s[e]] >= 0 && newID[d[e]] >= 0 {
				eids = append(eids, int64(e))
			}
		}
	} else {
		for _, u := range nodes {
			lo, hi := c.Row(int(u))
			for p := lo; p < hi; p++ {
				if newID[c.Indices[p]] >= 0 {
					eids = append(eids, int64(c.EIDs[p]))
				}
			}
		}
		slices.Sort(eids)
	}

	src := make([]int32, len(eids))
	dst := make([]int32, len(eids))
	for i, e := range eids {
		src[i], dst[i] = newID[s[e]], newID[d[e]]
	}
	if eids == nil {
		eids = []int64{}
	}
	return &Subgraph{
		Graph:   newGraph(len(nodes), len(nodes), src, dst),
		NodeIDs: append(make([]int32, 0, len(nodes)), nodes...),
		EdgeIDs: eids,
	}, nil
}

// EdgeSubgraph returns the subgraph made of the edges eids (DGL edge_subgraph
// with relabel_nodes): edge i of the subgraph is parent edge eids[i], and its
// nodes are the parent nodes incident to those edges, in increasing parent ID
// order, so NodeIDs is sorted. eids is copied. It costs O(len(eids) +
// NumNodes + NumEdges/64). It returns an error when the graph is not
// homogeneous (bipartite graphs would need separate source and destination
// maps), or naming the first position of eids that is not an edge or repeats
// an earlier one.
func (g *Graph) EdgeSubgraph(eids []int64) (*Subgraph, error) {
	if err := g.checkHomogeneous("EdgeSubgraph"); err != nil {
		return nil, err
	}
	if err := g.checkEIDs(eids, "eids"); err != nil {
		return nil, err
	}
	if j := firstRepeat(eids, g.NumEdges()); j >= 0 {
		i := slices.Index(eids, eids[j])
		return nil, fmt.Errorf("graph: eids[%d] = %d repeats eids[%d]", j, eids[j], i)
	}

	s, d := g.COO()
	newID := make([]int32, g.NumSrc())
	for _, e := range eids {
		newID[s[e]], newID[d[e]] = 1, 1
	}
	var nodes []int32
	for v, used := range newID {
		if used != 0 {
			newID[v] = int32(len(nodes))
			nodes = append(nodes, int32(v))
		}
	}
	src := make([]int32, len(eids))
	dst := make([]int32, len(eids))
	for i, e := range eids {
		src[i], dst[i] = newID[s[e]], newID[d[e]]
	}
	if nodes == nil {
		nodes = []int32{}
	}
	return &Subgraph{
		Graph:   newGraph(len(nodes), len(nodes), src, dst),
		NodeIDs: nodes,
		EdgeIDs: append(make([]int64, 0, len(eids)), eids...),
	}, nil
}

// firstRepeat returns the first position of ids whose value occurred before,
// or -1. Every id is in [0, n).
func firstRepeat(ids []int64, n int) int {
	seen := make([]uint64, (n+63)/64)
	for j, e := range ids {
		w, bit := e/64, uint64(1)<<(e%64)
		if seen[w]&bit != 0 {
			return j
		}
		seen[w] |= bit
	}
	return -1
}

// String describes the subgraph's size.
func (s *Subgraph) String() string {
	return fmt.Sprintf("Subgraph(id=%d, nodes=%d, edges=%d)", s.ID(), s.NumSrc(), s.NumEdges())
}
