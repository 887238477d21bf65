// Package readout holds the graph-level readouts of graph classification
// that have parameters: GlobalAttentionPooling (Li, Tarlow, Brockschmidt
// and Zemel, "Gated Graph Sequence Neural Networks", ICLR 2016,
// https://arxiv.org/abs/1511.05493), with DGL's semantics. The plain
// poolings (sum, mean, max) have none and are ops: ops.SumNodes,
// ops.MeanNodes, ops.MaxNodes.
//
// For a graph G of a batch, with node features x_v, GlobalAttentionPooling
// computes
//
//	r_G = sum_{v in G} softmax_{v in G}(gate(x_v)) * feat(x_v)
//
// where gate maps a node's features to one score, the softmax runs over the
// nodes of each graph, and feat is a function of the node features (the
// identity when not given). gate and feat are functions the caller builds,
// usually small MLPs (nn.Activation values); the parameters they use belong to the caller, who
// lists them so that Learnables returns them.
//
// Shapes: x (N, F) over the N nodes of a graph.Batched; gate maps it to
// (N, 1) and feat to (N, F'); the result is (NumGraphs, F'). A graph with
// no nodes reads out 0.
package readout
