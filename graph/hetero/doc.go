// Package hetero holds heterogeneous graphs: several node types, each with
// its own count and its own node IDs 0..n-1, and canonical edge types
// (source type, relation, destination type), each backed by an ordinary
// *graph.Graph from the source type's nodes to the destination type's, so
// every gnn kernel and layer applies to one relation unchanged. A relation
// between two different node types is a bipartite graph; edge IDs are per
// relation, those of its graph.
//
// Type order follows DGL: node types are sorted by name and edge types by
// (source, relation, destination), whatever order they were given in, and a
// type's ID is its position in that order. ToHomogeneous gives the nodes of
// type 0 the homogeneous IDs 0..n0-1, those of type 1 the next ones, and so
// on, and numbers edges the same way, relation by relation, keeping each
// relation's edge order (DGL's to_homogeneous); it records the type and the
// per-type ID of every node and edge. ToHeterogeneous splits a homogeneous
// graph back by its type columns, numbering the nodes and edges of each
// type in increasing homogeneous ID (DGL's to_heterogeneous), so the two
// are inverse.
//
// Load reads a heterograph from a directory of text files: a schema.txt
// naming the node types (count, optional feature file) and the edge types
// (one edge file each, in graph.ReadEdgeList's format with per-type IDs);
// LoadDataset also reads the label file and train/val/test split files
// the schema may give a node type. WriteBinary and ReadBinary store a
// heterograph in a checksummed binary format whose relations are in
// graph.WriteBinary's.
//
// A Graph is immutable. Invalid input (unknown types, sizes that disagree
// with a relation's graph, duplicate relations, bad type columns) is
// reported as an error naming what was wrong; nothing is silently fixed.
package hetero
