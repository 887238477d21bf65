// Package graph holds the immutable, validated sparse graph that every gnn
// kernel and layer reads.
//
// A Graph has NumSrc source nodes, NumDst destination nodes and NumEdges
// directed edges src -> dst. Homogeneous graphs have NumSrc == NumDst;
// bipartite graphs and message-flow blocks may differ. The position of an edge
// in the COO lists given to FromCOO is its edge ID, and edge features are
// always one array indexed by edge ID whichever view a kernel walks.
//
// Two compressed views are built lazily, once, and are safe for concurrent
// readers:
//
//   - CSR groups edges by source (out-edges), rows are source nodes;
//   - CSC groups edges by destination (in-edges), rows are destination nodes.
//
// Within a row, edges appear in increasing edge-ID order. Each view carries
// the map from storage position to edge ID (EIDs). ReorderEdges renumbers
// the edges in the order of one view (DGL's reorder_graph), so that kernels
// walking that view read per-edge rows in memory order.
//
// Batch joins many small graphs into one Batched graph with per-graph node
// and edge offsets, as dgl.batch does, for graph classification; Unbatch
// splits it back, and its Readout graph maps every node to its graph.
//
// Graphs are immutable: slices returned by accessors are shared with the
// graph and must not be modified. Reverse is O(1): the reversed graph shares
// all storage, its CSR is the original's CSC and vice versa.
//
// Node IDs and the views' edge IDs are int32, so a graph holds at most
// MaxEdges (2^31-1) edges; row pointers are int64, and the API passes edge
// IDs as int64. Every graph has a process-unique ID, which Gorgonia
// ops put in their hashes so that ops over different graphs never merge.
//
// Input supplied by a user (COO lists, node IDs, files) is validated and
// reported as an error naming what was wrong and where; nothing is silently
// fixed or dropped.
package graph
