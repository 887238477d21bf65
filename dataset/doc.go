// Package dataset holds node-classification datasets for gnn: a graph, node
// features, labels and a train/validation/test split. It loads the Planetoid
// citation graphs (Cora, CiteSeer, PubMed) from the text format described in
// LoadPlanetoid, reads and writes the raw layout of OGB's node-property
// datasets (ogbn-arxiv, ogbn-products; LoadOGB, WriteOGB), and generates
// planted-partition graphs whose features are correlated with their
// classes, the default training data of the examples.
package dataset
