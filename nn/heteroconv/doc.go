// Package heteroconv holds HeteroGraphConv (DGL's dgl.nn.HeteroGraphConv):
// a layer over a heterograph that runs one homogeneous layer (any nn.Layer:
// gcn.GraphConv, gat.GATConv, sage.SAGEConv, ...) on each relation's graph
// and combines, per destination node type, the relations' outputs with an
// mp.CrossReducer (sum, mean, max, min or stack).
//
// Each relation's layer receives the source type's features and the
// relation's graph, which is bipartite when the relation joins two node
// types: only layers that accept such a graph (gcn.GraphConv does; GATConv
// and GINConv need a relation within one node type, SAGEConv one whose
// destinations are the first sources) can sit on those relations, and their
// errors say so.
//
// Shapes: x maps each node type to its (count, in) features; the output maps
// each destination type reached by at least one relation to its combined
// features, (count, out) for every reducer but stack, (count, R, out) for
// stack over R relations.
package heteroconv
