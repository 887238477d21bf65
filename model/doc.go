// Package model holds self-describing model files: a trained model's
// architecture (a Spec: the layers in order, their widths, heads,
// activations, dropout and norm settings, readout, ...) and its parameters
// in one checksummed file, so that Load rebuilds and runs the model with no
// code of the program that trained it.
//
//	spec := model.Spec{InFeatures: 1433, Classes: 7, SelfLoops: true, Layers: []model.LayerSpec{
//		{Type: model.GraphConv, In: 1433, Out: 16, Activation: "relu", Dropout: 0.5},
//		{Type: model.GraphConv, In: 16, Out: 7, Dropout: 0.5},
//	}}
//	m, _ := model.New(spec, tensor.Float32, 1) // fresh, seeded weights
//	... train m's layers (m is a train.Stack; Layer returns the parameters) ...
//	m.Save("cora.gnnmodel")
//
//	m, _ = model.Load("cora.gnnmodel")
//	scores, _ := m.Predict(g, x) // evaluation mode, one row per node
//
// # Layers
//
// A LayerSpec's Type is one of GraphConv, GATConv (with edge features:
// PredictEdges), GATv2Conv, SAGEConv, GINConv (with an MLP of Linear and
// BatchNorm layers), APPNPConv, SGConv, TAGConv, ChebConv, RelGraphConv
// (PredictRelations), HeteroGraphConv (PredictHetero), Linear and BatchNorm.
// Each is built with its package's constructor and options (nn/gcn, nn/gat,
// ...), so its parameters have that package's names ("gcn1.weight"), shapes
// and seeded initialisation. A graph-level model pools the last layer's
// node features with a Spec.Readout (sum, mean, max or attention) and applies
// Spec.Head's Linear and BatchNorm layers to the pooled rows
// (PredictGraphs, on a graph.Batched).
//
// Predict and its variants run in evaluation mode (dropout is the
// identity), on the whole graph, and may be called concurrently. For
// training, a Model is a train.Stack: Layer adds one layer to an expression
// graph and returns its parameter nodes, holding the model's values, with
// dropout following Mode; copy trained values back with SetParams before
// Save. Importers set every parameter at once with SetParams, which checks
// names and shapes.
//
// # File layout
//
// A model file, format version 1, is little-endian:
//
//	magic    "GNNMODEL" (8 bytes)
//	version  uint32 (1)
//	dtype    uint32 (1 float32, 2 float64)
//	speclen  uint32
//	spec     speclen bytes of JSON: the normalised Spec
//	count    uint32
//	count parameter records, in the model's order (ParamNames):
//	  name length uint32, name bytes, dtype uint8 (1 float32, 2 float64),
//	  rank uint32, rank dimensions uint64, elements (4 or 8 bytes each)
//	crc      uint32: CRC-32C (Castagnoli) of every byte before it
//
// The parameter records are those of nn.SaveParams's parameter files
// ("GNNPARAM"; one encoder, internal/paramio, writes both), and the file is
// written atomically (to a temporary file, synced, renamed). Load reads the
// whole file and verifies the checksum first; it refuses a newer version, a
// spec it cannot build (an unknown layer type, say), a spec whose parameters
// could not fit in the file, and parameters missing, unknown or of another
// shape or dtype than the spec's, naming the file, the layer and the
// parameter. A parameter file of nn.SaveParams holds no architecture:
// Load says so, and IsModelFile tells the two apart by their magic; such
// files keep loading with nn.LoadParams into the model that wrote them.
package model
