package hetero

import (
	"fmt"
	"slices"

	"github.com/gnngo/gnn/graph"
)

// RelationSubgraph returns the heterograph of the given edge types only
// (DGL's edge_type_subgraph), with the node types they connect, all their
// nodes and the relations' graphs shared. It returns an error naming an
// edge type that h lacks or that is given twice.
func (h *Graph) RelationSubgraph(types ...EdgeType) (*Graph, error) {
	nodes := map[string]int{}
	rels := make(map[EdgeType]*graph.Graph, len(types))
	for i, t := range types {
		id, err := h.EdgeTypeID(t)
		if err != nil {
			return nil, fmt.Errorf("%w (types[%d])", err, i)
		}
		if _, dup := rels[t]; dup {
			return nil, fmt.Errorf("hetero: types[%d] = %s repeats an earlier edge type", i, t)
		}
		rels[t] = h.rels[id]
		nodes[t.Src] = h.counts[h.src[id]]
		nodes[t.Dst] = h.counts[h.dst[id]]
	}
	return New(nodes, rels)
}

// AddReverse returns h with one more relation per relation (s, r, d): its
// reverse (d, prefix+r, s), whose edge i is edge i of (s, r, d) reversed,
// as the reverse relations of DGL's and PyG's ogbn-mag examples. The
// reversed graphs share storage with the originals (graph.Reverse). It
// returns an error when prefix is empty or a reverse edge type already
// exists.
func (h *Graph) AddReverse(prefix string) (*Graph, error) {
	if prefix == "" {
		return nil, fmt.Errorf("hetero: AddReverse needs a non-empty relation prefix")
	}
	nodes, rels := h.spec()
	for i, t := range h.etypes {
		r := EdgeType{Src: t.Dst, Rel: prefix + t.Rel, Dst: t.Src}
		if _, dup := rels[r]; dup {
			return nil, fmt.Errorf("hetero: the reverse of %s is %s, which the graph already has", t, r)
		}
		rels[r] = h.rels[i].Reverse()
	}
	return New(nodes, rels)
}

// MetapathReachable returns the graph connecting the source nodes of
// path[0]'s type to the destination nodes of the last edge type's, with
// one edge u -> v when v is reachable from u along the path (DGL's
// metapath_reachable_graph: the boolean product of the relations'
// adjacency matrices). Edges are sorted by source, then destination. It
// returns an error when the path is empty, names an edge type h lacks, is
// not connected (one type's destination is not the next one's source), or
// when the result would exceed graph.MaxEdges.
func (h *Graph) MetapathReachable(path []EdgeType) (*graph.Graph, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("hetero: empty metapath")
	}
	rels := make([]*graph.Compressed, len(path))
	ids := make([]int, len(path))
	for i, t := range path {
		id, err := h.EdgeTypeID(t)
		if err != nil {
			return nil, fmt.Errorf("%w (metapath[%d])", err, i)
		}
		if i > 0 && path[i-1].Dst != t.Src {
			return nil, fmt.Errorf("hetero: metapath[%d] = %s does not start where metapath[%d] = %s ends", i, t, i-1, path[i-1])
		}
		rels[i], ids[i] = h.rels[id].CSR(), id
	}
	numSrc, numDst := h.counts[h.src[ids[0]]], h.counts[h.dst[ids[len(ids)-1]]]

	// stamp[i][y] == u+1: node y, a destination of path[i], was already
	// reached from source u.
	stamp := make([][]int32, len(path))
	for i, id := range ids {
		stamp[i] = make([]int32, h.counts[h.dst[id]])
	}
	var src, dst []int32
	var frontier, next []int32
	for u := range numSrc {
		frontier = append(frontier[:0], int32(u))
		for i, c := range rels {
			next = next[:0]
			for _, x := range frontier {
				for _, y := range c.Indices[c.Indptr[x]:c.Indptr[x+1]] {
					if stamp[i][y] != int32(u)+1 {
						stamp[i][y] = int32(u) + 1
						next = append(next, y)
					}
				}
			}
			frontier, next = next, frontier
		}
		slices.Sort(frontier)
		if len(src)+len(frontier) > graph.MaxEdges {
			return nil, fmt.Errorf("hetero: metapath graph has more than %d edges", graph.MaxEdges)
		}
		for _, v := range frontier {
			src, dst = append(src, int32(u)), append(dst, v)
		}
	}
	return graph.FromCOO(numSrc, numDst, src, dst)
}
