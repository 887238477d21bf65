package nn

import "gorgonia.org/gorgonia"

// Activation is a function of a layer's node features: the activation a
// layer applies to its output (nil means none), or GINConv's apply function.
// ReLU, ELU, gorgonia.Rectify and gorgonia.Tanh are Activations.
type Activation func(*gorgonia.Node) (*gorgonia.Node, error)

// Layer is a graph layer: it maps the node features x of a graph g to new
// node features, with the learnable parameters Learnables returns, so a
// model can hold a stack of them. The convolutions of nn's layer packages
// are Layers: GraphConv (nn/gcn), GATConv (nn/gat), GATv2Conv (nn/gatv2),
// SAGEConv (nn/sage), GINConv (nn/gin), SGConv (nn/sgc), TAGConv (nn/tag),
// APPNPConv (nn/appnp), ChebConv (nn/cheb) and RelGraphConv (nn/rgcn,
// whose g is the *rgcn.Relations of a graph). g is a *graph.Graph, or a
// worker's share of a distributed graph (Sharded) for the layers that
// support one: GraphConv, GATConv, SAGEConv, GINConv, TAGConv and
// APPNPConv.
type Layer interface {
	Forward(g Graph, x *gorgonia.Node) (*gorgonia.Node, error)
	Learnables() gorgonia.Nodes
}

// WeightedLayer is a Layer that also takes one weight per edge of g (a
// column of g.NumEdges() rows), which scales the edge's message.
type WeightedLayer interface {
	Layer
	ForwardWeighted(g Graph, x, edgeWeight *gorgonia.Node) (*gorgonia.Node, error)
}

// BipartiteLayer is a Layer that also runs on a graph between two node
// sets, taking the source nodes' features src (NumSrc rows) and the
// destination nodes' features dst (NumDst rows) apart, with widths of
// their own (DGL's (feat_src, feat_dst) pair). HeteroGraphConv uses it on
// relations whose source and destination node types differ. SAGEConv and
// GATConv are BipartiteLayers (WithDstIn gives the destination side a width
// of its own); GraphConv reads no destination features, so its Forward
// with the source features serves such relations as is.
type BipartiteLayer interface {
	Layer
	ForwardBipartite(g Graph, src, dst *gorgonia.Node) (*gorgonia.Node, error)
}
