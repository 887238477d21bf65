// Package nn holds what gnn's layers share and what training a graph neural
// network with Gorgonia needs beyond the message-passing ops: a correct,
// seedable dropout with a training/evaluation switch, Glorot initialisation,
// masked softmax cross-entropy and accuracy, L2 weight decay on chosen
// parameters, early stopping, unique parameter names, saving and loading a
// model's parameters, sparse inputs (Sparse) and dense projections (MatMul,
// on nn/internal/gemm's deterministic AVX2 kernels).
//
// The layers themselves live in subpackages: nn/gcn (GraphConv), nn/gat
// (GATConv), nn/gatv2 (GATv2Conv), nn/sage (SAGEConv), nn/gin (GINConv),
// nn/appnp (APPNPConv), nn/sgc (SGConv), nn/tag (TAGConv) and nn/cheb
// (ChebConv). Each is a Layer (all but ChebConv, which DGL gives no edge
// weights, a WeightedLayer) and takes its activation as an Activation.
package nn
