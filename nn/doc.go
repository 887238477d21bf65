// Package nn holds what gnn's layers share and what training a graph neural
// network with Gorgonia needs beyond the message-passing ops: a correct,
// seedable dropout with a training/evaluation switch, Glorot initialisation,
// masked softmax cross-entropy and accuracy, L2 weight decay on chosen
// parameters, early stopping, unique parameter names, saving and loading a
// model's parameters, sparse inputs (Sparse) and dense projections (MatMul,
// on nn/internal/gemm's deterministic AVX2 kernels).
//
// The layers themselves live in subpackages: nn/gcn (GraphConv), nn/gat
// (GATConv), nn/sage (SAGEConv) and nn/gin (GINConv). Each is a Layer (a
// WeightedLayer, in fact) and takes its activation as an Activation.
package nn
