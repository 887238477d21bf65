package model

// Spec describes a model's architecture: everything needed to rebuild it
// but the parameter values. It is stored as JSON in a model file, with the
// field names of its tags. A Spec from New or Load is normalised: every
// layer has its name and seeds filled in, so that the same Spec builds the
// same model with the same parameter names and dropout masks.
type Spec struct {
	// Task says what the model's output is for: "node" (one row per node,
	// the default), "graph" (one row per graph of a graph.Batched, through
	// Readout) or another word the application gives it (informational).
	Task string `json:"task,omitempty"`
	// InFeatures is the width of the input node features; Layers[0].In
	// must equal it. Heterograph models (HeteroGraphConv) give a width per
	// node type in NodeFeatures instead.
	InFeatures   int            `json:"in_features,omitempty"`
	NodeFeatures map[string]int `json:"node_features,omitempty"`
	// Classes, when not 0, is the number of classes the output scores,
	// which must be the output width.
	Classes int `json:"classes,omitempty"`
	// SelfLoops makes Predict add a self-loop on every node of the graph it
	// is given (graph.AddSelfLoops) before running the layers, as the
	// model was trained (GCN and GAT on Planetoid). Layer does not: it runs
	// on the graph or block it is given.
	SelfLoops bool `json:"self_loops,omitempty"`
	// Layers are applied in order, each to the output of the one before.
	Layers []LayerSpec `json:"layers"`
	// Readout, for graph-level models, pools the last layer's node
	// features into one row per graph; Head is then applied to those rows.
	Readout *ReadoutSpec `json:"readout,omitempty"`
	Head    []LayerSpec  `json:"head,omitempty"`
	// Fanouts are the neighbours sampled per layer in training, the input
	// layer's first (-1: all), for an inference that samples the same way
	// (informational; Predict uses every edge).
	Fanouts []int `json:"fanouts,omitempty"`
}

// LayerSpec describes one layer. Type is one of the layer types of the
// package documentation; the other fields apply to the types their comments
// name and must be left zero for the others.
type LayerSpec struct {
	Type string `json:"type"`
	// Name is the prefix of the layer's parameter names ("gcn1" gives
	// "gcn1.weight"); New fills in the type's short name and the layer's
	// position, "gcn1", "sage2", ... Names must be unique in a model.
	Name string `json:"name,omitempty"`
	// In and Out are the input and output widths (per head for GATConv and
	// GATv2Conv: the output is Heads*Out wide unless MeanHeads).
	In  int `json:"in"`
	Out int `json:"out"`
	// Activation is applied to the layer's output: "" or "none", "relu",
	// "elu", "tanh" or "sigmoid".
	Activation string `json:"activation,omitempty"`
	// Dropout is the dropout probability on the layer's input features
	// (GATConv, GATv2Conv, SAGEConv: the layer's feature dropout; other
	// types: nn.Dropout before the layer, seeded by DropoutSeed). Predict
	// runs in evaluation mode, where dropout is the identity.
	Dropout float64 `json:"dropout,omitempty"`
	// AttnDropout is the attention dropout (GATConv, GATv2Conv).
	AttnDropout float64 `json:"attn_dropout,omitempty"`
	// EdgeDropout is APPNPConv's edge dropout.
	EdgeDropout float64 `json:"edge_dropout,omitempty"`
	// OutDropout is RelGraphConv's dropout of its output.
	OutDropout float64 `json:"out_dropout,omitempty"`
	// NoBias removes the layer's bias (all types with one).
	NoBias bool `json:"no_bias,omitempty"`
	// Heads is the number of attention heads (GATConv, GATv2Conv; 0 means
	// 1); MeanHeads averages them instead of concatenating.
	Heads     int  `json:"heads,omitempty"`
	MeanHeads bool `json:"mean_heads,omitempty"`
	// NegativeSlope is the attention's LeakyReLU slope (GATConv,
	// GATv2Conv; nil: 0.2).
	NegativeSlope *float64 `json:"negative_slope,omitempty"`
	// Residual adds a residual connection (GATConv, GATv2Conv).
	Residual bool `json:"residual,omitempty"`
	// EdgeFeatures is the width of the edge features in the attention
	// (GATConv, GATv2Conv; 0: none). Such a model runs with PredictEdges.
	EdgeFeatures int `json:"edge_features,omitempty"`
	// ShareWeights makes GATv2Conv's source and destination projections one.
	ShareWeights bool `json:"share_weights,omitempty"`
	// AllowZeroInDegree lets GraphConv, GATConv, GATv2Conv and SGConv run
	// on graphs with nodes that have no in-edges.
	AllowZeroInDegree bool `json:"allow_zero_in_degree,omitempty"`
	// Norm is GraphConv's normalisation: "both" (the default), "right",
	// "left" or "none".
	Norm string `json:"norm,omitempty"`
	// Aggregator is SAGEConv's ("mean", the default, "gcn" or "pool"),
	// GINConv's ("sum", the default, "mean" or "max") or HeteroGraphConv's
	// cross-relation reducer ("sum", the default, "mean", "max", "min" or
	// "stack").
	Aggregator string `json:"aggregator,omitempty"`
	// K is the number of propagation steps or hops (APPNPConv, SGConv,
	// TAGConv; 0: the layer's default) or of Chebyshev terms (ChebConv).
	K int `json:"k,omitempty"`
	// Alpha is APPNPConv's teleport probability.
	Alpha float64 `json:"alpha,omitempty"`
	// Eps is GINConv's ε (its initial value when LearnEps) and BatchNorm's
	// epsilon (0: 1e-5).
	Eps      float64 `json:"eps,omitempty"`
	LearnEps bool    `json:"learn_eps,omitempty"`
	// MLP is GINConv's apply function: Linear and BatchNorm layers from In
	// to Out, each with its activation (empty: the identity, In == Out).
	MLP []LayerSpec `json:"mlp,omitempty"`
	// LambdaMax is ChebConv's largest eigenvalue of the normalised
	// Laplacian (0: 2, as DGL).
	LambdaMax float64 `json:"lambda_max,omitempty"`
	// NumRelations, Regularizer ("", "basis" or "bdd"), Bases (bases or
	// blocks) and NoSelfLoop configure RelGraphConv.
	NumRelations int    `json:"num_relations,omitempty"`
	Regularizer  string `json:"regularizer,omitempty"`
	Bases        int    `json:"bases,omitempty"`
	NoSelfLoop   bool   `json:"no_self_loop,omitempty"`
	// DstIn is the width of the destination features of a GATConv or
	// SAGEConv on a relation between two node types (their WithDstIn);
	// New fills it in from the node types' widths when 0.
	DstIn int `json:"dst_in,omitempty"`
	// Relations are HeteroGraphConv's layers, one per relation.
	Relations []RelationSpec `json:"relations,omitempty"`
	// Seed seeds the layer's initialisation and its own dropout; New fills
	// it in (from its seed argument) when nil.
	Seed *uint64 `json:"seed,omitempty"`
	// DropoutSeed seeds the input dropout of the types without feature
	// dropout of their own; New fills it in when Dropout > 0.
	DropoutSeed *uint64 `json:"dropout_seed,omitempty"`
}

// ReadoutSpec is a graph-level model's pooling of node features into one
// row per graph.
type ReadoutSpec struct {
	// Type is "sum", "mean", "max" or "attention" (global attention
	// pooling).
	Type string `json:"type"`
	// Gate (attention only) maps node features to one score per node;
	// Feat, optional, maps them to the features that are pooled. Both are
	// Linear and BatchNorm layers.
	Gate []LayerSpec `json:"gate,omitempty"`
	Feat []LayerSpec `json:"feat,omitempty"`
}

// RelationSpec is the layer of one relation of a HeteroGraphConv, for the
// canonical edge type (Src, Rel, Dst).
type RelationSpec struct {
	Src   string    `json:"src"`
	Rel   string    `json:"rel"`
	Dst   string    `json:"dst"`
	Layer LayerSpec `json:"layer"`
}

// OutFeatures returns the width of the model's output: that of its last
// head layer, or else of its last layer.
func (s Spec) OutFeatures() int {
	switch {
	case len(s.Head) > 0:
		return s.Head[len(s.Head)-1].OutWidth()
	case s.Readout != nil && len(s.Readout.Feat) > 0:
		return s.Readout.Feat[len(s.Readout.Feat)-1].OutWidth()
	case len(s.Layers) > 0:
		return s.Layers[len(s.Layers)-1].OutWidth()
	}
	return 0
}

// OutWidth returns the width of the layer's output rows: Heads*Out for an
// attention layer with concatenated heads, Out otherwise. (APPNPConv and
// BatchNorm keep their input's width: New sets their Out to In when 0.)
func (ls LayerSpec) OutWidth() int {
	switch ls.Type {
	case GATConv, GATv2Conv:
		if !ls.MeanHeads {
			return max(ls.Heads, 1) * ls.Out
		}
	}
	return ls.Out
}
