// Package dataset holds node-classification datasets for gnn: a graph, node
// features, labels and a train/validation/test split. It loads the Planetoid
// citation graphs (Cora, CiteSeer, PubMed) from the text format described in
// LoadPlanetoid, reads and writes the raw layout of OGB's node-property
// datasets (ogbn-arxiv, ogbn-products; LoadOGB, WriteOGB), and generates
// planted-partition graphs whose features are correlated with their
// classes, the default training data of the examples.
//
// For graph classification, a GraphDataset holds many small graphs with a
// class each: LoadTU reads the TU datasets' text format (MUTAG, PROTEINS,
// ...), and MiniGC generates graphs whose class is their structure.
package dataset
