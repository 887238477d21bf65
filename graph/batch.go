package graph

import (
	"fmt"
	"sync"
)

// Batched is many graphs joined side by side into one graph with no edge
// between them, as dgl.batch builds it: graph i's nodes are numbered
// NodeOffsets()[i] onwards and its edges EdgeOffsets()[i] onwards, in the
// order of the graphs and, within a graph, in its own node and edge order.
// Node features of a batch are therefore the graphs' feature rows stacked,
// and per-graph readouts reduce contiguous row ranges.
//
// A Batched is a Graph (it embeds one) and is as immutable; the offsets it
// returns are shared and must not be modified.
type Batched struct {
	*Graph

	nodeOff, edgeOff []int64 // NumGraphs+1 prefix sums

	readoutOnce sync.Once
	readout     *Graph
}

// Batch joins graphs into one (dgl.batch). Node v of graphs[i] becomes node
// NodeOffsets()[i]+v and edge e becomes edge EdgeOffsets()[i]+e of the
// batch. The graphs are not modified and share nothing with the batch. It
// returns an error when graphs is empty, a graph is nil or not homogeneous
// (blocks and bipartite graphs are not batched), or the batch would exceed
// MaxNodes nodes (or graphs) or MaxEdges edges.
func Batch(graphs []*Graph) (*Batched, error) {
	if len(graphs) == 0 {
		return nil, fmt.Errorf("graph: Batch of no graphs")
	}
	if len(graphs) > MaxNodes {
		return nil, fmt.Errorf("graph: Batch of %d graphs, more than MaxNodes (%d)", len(graphs), MaxNodes)
	}
	nodeOff := make([]int64, len(graphs)+1)
	edgeOff := make([]int64, len(graphs)+1)
	for i, g := range graphs {
		if g == nil {
			return nil, fmt.Errorf("graph: Batch: graph %d is nil", i)
		}
		if !g.Homogeneous() {
			return nil, fmt.Errorf("graph: Batch: graph %d is not homogeneous (%d source, %d destination nodes)", i, g.NumSrc(), g.NumDst())
		}
		nodeOff[i+1] = nodeOff[i] + int64(g.NumSrc())
		edgeOff[i+1] = edgeOff[i] + int64(g.NumEdges())
		if nodeOff[i+1] > MaxNodes {
			return nil, fmt.Errorf("graph: Batch: graphs 0 to %d have %d nodes, more than MaxNodes (%d)", i, nodeOff[i+1], MaxNodes)
		}
		if edgeOff[i+1] > MaxEdges {
			return nil, fmt.Errorf("graph: Batch: graphs 0 to %d have %d edges, more than MaxEdges (%d)", i, edgeOff[i+1], MaxEdges)
		}
	}
	n, m := nodeOff[len(graphs)], edgeOff[len(graphs)]
	src := make([]int32, m)
	dst := make([]int32, m)
	for i, g := range graphs {
		s, d := g.COO()
		base, at := int32(nodeOff[i]), edgeOff[i]
		for e := range s {
			src[at+int64(e)] = s[e] + base
			dst[at+int64(e)] = d[e] + base
		}
	}
	return &Batched{Graph: newGraph(int(n), int(n), src, dst), nodeOff: nodeOff, edgeOff: edgeOff}, nil
}

// NumGraphs returns the number of graphs in the batch.
func (b *Batched) NumGraphs() int { return len(b.nodeOff) - 1 }

// NodeOffsets returns the NumGraphs+1 node offsets: graph i holds nodes
// [NodeOffsets()[i], NodeOffsets()[i+1]) of the batch. The slice is shared.
func (b *Batched) NodeOffsets() []int64 { return b.nodeOff }

// EdgeOffsets returns the NumGraphs+1 edge offsets: graph i holds edges
// [EdgeOffsets()[i], EdgeOffsets()[i+1]) of the batch. The slice is shared.
func (b *Batched) EdgeOffsets() []int64 { return b.edgeOff }

// BatchNumNodes returns the number of nodes of every graph (DGL's
// batch_num_nodes), in a new slice.
func (b *Batched) BatchNumNodes() []int64 { return sizes(b.nodeOff) }

// BatchNumEdges returns the number of edges of every graph (DGL's
// batch_num_edges), in a new slice.
func (b *Batched) BatchNumEdges() []int64 { return sizes(b.edgeOff) }

func sizes(off []int64) []int64 {
	s := make([]int64, len(off)-1)
	for i := range s {
		s[i] = off[i+1] - off[i]
	}
	return s
}

// Unbatch splits the batch back into its graphs (dgl.unbatch): graph i has
// the nodes and edges of range i, renumbered from 0, in the batch's order,
// so it has the structure and edge IDs of the i-th graph given to Batch.
// The graphs are new (new IDs) and share nothing with the batch.
func (b *Batched) Unbatch() []*Graph {
	s, d := b.COO()
	out := make([]*Graph, b.NumGraphs())
	for i := range out {
		lo, hi := b.edgeOff[i], b.edgeOff[i+1]
		base := int32(b.nodeOff[i])
		src := make([]int32, hi-lo)
		dst := make([]int32, hi-lo)
		for e := lo; e < hi; e++ {
			src[e-lo] = s[e] - base
			dst[e-lo] = d[e] - base
		}
		n := int(b.nodeOff[i+1] - b.nodeOff[i])
		out[i] = newGraph(n, n, src, dst)
	}
	return out
}

// Readout returns the bipartite graph from the batch's nodes to its graphs
// with one edge per node: edge v goes from node v to the graph holding it.
// Its in-edge view (CSC) has NodeOffsets as row pointers and the node IDs in
// order as sources and edge IDs, so a copy_u SpMM over it reduces each
// graph's contiguous node rows (sum, mean or max pooling), and an edge
// softmax over it normalises over each graph's nodes. It is built on first
// use and is the same graph on every call.
func (b *Batched) Readout() *Graph {
	b.readoutOnce.Do(func() {
		n := b.NumSrc()
		src := make([]int32, n)
		dst := make([]int32, n)
		for i := range b.NumGraphs() {
			for v := b.nodeOff[i]; v < b.nodeOff[i+1]; v++ {
				src[v], dst[v] = int32(v), int32(i)
			}
		}
		b.readout = newGraph(n, b.NumGraphs(), src, dst)
	})
	return b.readout
}

// String describes the batch's size.
func (b *Batched) String() string {
	return fmt.Sprintf("Batched(id=%d, graphs=%d, nodes=%d, edges=%d)", b.ID(), b.NumGraphs(), b.NumSrc(), b.NumEdges())
}
