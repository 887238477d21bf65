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
// BatchNorm layers), APPNPConv, SGConv, TAGConv, ChebConv, RelGraphConv,
// HeteroGraphConv (PredictHetero), Linear and BatchNorm. An R-GCN runs on a
// homogeneous graph grouped by relation (PredictRelations), or, with
// Spec.Inputs (each node type's features, projected or as they are, or a
// learned embedding) and a Target type, on a heterograph
// (PredictRelational), as DGL's entity classification examples.
// Each is built with its package's constructor and options (nn/gcn, nn/gat,
// ...), so its parameters have that package's names ("gcn1.weight"), shapes
// and seeded initialisation. A graph-level model pools the last layer's
// node features with a Spec.Readout (sum, mean, max or attention) and applies
// Spec.Head's Linear and BatchNorm layers to the pooled rows
// (PredictGraphs, on a graph.Batched); a readout with Levels pools the
// input and every layer's output, each with its own head, and sums them
// (the GIN paper's readout).
//
// Predict and its variants run in evaluation mode (dropout is the
// identity), on the whole graph, and may be called concurrently: each
// builds an expression graph of its own over the shared parameter data.
//
// For training, a Model is a train.Stack (Layer adds one layer to an
// expression graph and returns its parameter nodes, holding the model's
// tensors), and Forward and ForwardGraphs add the whole model; dropout
// follows Mode. The examples gcn, gat, sage and graphclass build their
// models this way, and their -save writes model files: copy the trained
// values back with SetParams before Save (the optimiser may move them to new
// tensors). Importers set every parameter at once with SetParams, which
// checks names, dtypes and shapes.
//
// # Parameters
//
// Parameters are named "<layer name>.<parameter>", with the layer packages'
// names; weights multiply from the right (x W), so a weight is (in, out).
// For a layer named L with In i, Out o, H heads (F = H*o), K, R relations
// and B bases (ParamNames lists a model's in order):
//
//	GraphConv    L.weight (i, o), L.bias (o)
//	GATConv      L.weight (i, F), L.attn_l, L.attn_r (1, H, o), L.res_weight (i, F) with
//	             Residual when i != F, L.bias (F), L.edge_weight (D, F), L.attn_e (1, H, o)
//	             with EdgeFeatures D
//	GATv2Conv    L.weight_src (i, F), L.bias_src (F), L.weight_dst (i, F) and L.bias_dst
//	             (F) but with ShareWeights, L.attn (1, H, o), L.res_weight (i, F) and
//	             L.res_bias (F) with Residual when i != F, L.edge_weight (D, F)
//	SAGEConv     L.fc_pool.weight (i, i), L.fc_pool.bias (i) (pool), L.fc_self.weight
//	             (i, o) (mean, pool), L.fc_neigh.weight (i, o), L.bias (o)
//	GINConv      L.eps (1, 1) with LearnEps, then its MLP's (L.mlp1, L.mlp2, ...)
//	SGConv       L.weight (i, o), L.bias (o)
//	TAGConv      L.weight ((K+1)*i, o), L.bias (o)
//	ChebConv     L.weight (K*i, o), L.bias (o)
//	RelGraphConv L.weight (R, i, o), or L.bases (B, i, o) and L.coeff (R, B), or L.blocks
//	             (R, B, i/B, o/B); L.loop_weight (i, o), L.bias (o)
//	Linear       L.weight (i, o), L.bias (o)
//	BatchNorm    L.gamma (i), L.beta (i)
//	inputs       <type>.embed (nodes, InFeatures), <type>.proj (features, InFeatures)
//
// APPNPConv and the sum, mean and max readouts have none; HeteroGraphConv's
// are its relations' layers', named L.<src>.<rel>.<dst>.
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
// spec it cannot build (an unknown layer type, say), a spec whose
// parameters could not fit in the file, and parameters missing, unknown or
// of another shape or dtype than the spec's, naming the file, the layer and
// the parameter. A spec field this build does not know is refused too: a
// writer that adds one raises the version. A parameter file of
// nn.SaveParams holds no architecture: Load says so, and IsModelFile tells
// the two apart by their magic; such files keep loading with nn.LoadParams
// into the model that wrote them.
package model
