// Package heteroconv holds HeteroGraphConv (DGL's dgl.nn.HeteroGraphConv):
// a layer over a heterograph that runs one homogeneous layer (any nn.Layer:
// gcn.GraphConv, gat.GATConv, sage.SAGEConv, ...) on each relation's graph
// and combines, per destination node type, the relations' outputs with an
// mp.CrossReducer (sum, mean, max, min or stack).
//
// Each relation's layer receives the relation's graph, which is bipartite
// when the relation joins two node types, and the source type's features.
// On such a relation a layer that reads destination features, an
// nn.BipartiteLayer (sage.SAGEConv, gat.GATConv; WithDstIn gives their
// destination side its own width), gets the destination type's features
// too, through ForwardBipartite, as DGL passes a (src, dst) pair; it fails,
// naming the relation, when that type has no features. gcn.GraphConv reads
// source features only and runs through Forward. Layers that are neither
// (GINConv) need relations within one node type.
//
// Shapes: x maps each node type to its (count, in) features; the output maps
// each destination type reached by at least one relation to its combined
// features, (count, out) for every reducer but stack, (count, R, out) for
// stack over R relations.
package heteroconv
