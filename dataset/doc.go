// Package dataset holds node-classification datasets for gnn: a graph, node
// features, labels and a train/validation/test split. It loads the Planetoid
// citation graphs (Cora, CiteSeer, PubMed) from the text format described in
// LoadPlanetoid, reads and writes the raw layout of OGB's node-property
// datasets (ogbn-arxiv, ogbn-products; LoadOGB, WriteOGB), and generates
// planted-partition graphs whose features are correlated with their
// classes, the default training data of the examples.
//
// For link prediction, a LinkDataset holds a message-passing graph and the
// positive and negative node pairs of its train, validation and test sets:
// LoadOGBLink and WriteOGBLink read and write OGB's link-property layout
// (ogbl-collab, ogbl-citation2, ...), whose PyTorch split files
// tools/ogbl_split_to_csv.py converts to CSV.
//
// For graph classification, a GraphDataset holds many small graphs with a
// class each: LoadTU reads the TU datasets' text format (MUTAG, PROTEINS,
// ...), and MiniGC generates graphs whose class is their structure.
package dataset
