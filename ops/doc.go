// Package ops holds gnn's message-passing primitives as Gorgonia operations:
// fused generalized SpMM (message + reduce onto nodes), SDDMM (one value per
// edge from its endpoints) and edge softmax, each with its own backward, so
// graph layers compose inside a Gorgonia expression graph and train with its
// solvers.
//
// # Naming
//
// The grammar is DGL's. An operand lives on source nodes (u), destination
// nodes (v) or edges (e). SpMM combines a source-node operand with an edge
// operand and reduces onto destination nodes: CopyUSum, UMulESum, UAddEMax,
// … SDDMM combines any two operands onto edges: UAddV, UDotV, EMulV, CopyV, …
// The general forms SpMM(g, op, red, u, e) and SDDMM(g, op, a, at, b, bt)
// cover the same combinations; sugar_gen.go has one named function for each.
// EdgeSoftmax normalises per-edge scores over each node's in- or out-edges;
// GATAttention fuses GAT's u_add_v, LeakyReLU and edge softmax into one op
// that stores no per-edge scores, and GATAttentionSum adds the u_mul_e sum
// to it in an op that keeps nothing per edge for its backward, which
// recomputes the attention. ScaleByDegree multiplies node rows by a
// power of their degree, and NormalizedSum is GraphConv's degree-normalised
// copy_u sum in one op.
//
// For graph classification, ReadoutNodes (SumNodes, MeanNodes, MaxNodes)
// pools node features over each graph of a graph.Batched, SoftmaxNodes
// normalises scores over each graph's nodes and WeightedSumNodes sums
// weighted rows: segment reductions over the graphs' contiguous node ranges,
// run as SpMM and edge softmax over the batch's readout graph, so they share
// those kernels and gradients.
//
// # Semantics
//
// Feature dimensions broadcast by NumPy rules without the broadcast operand
// being expanded: (N, H, D) node features combine with (E, H, 1) edge weights.
// A destination node with no in-edges gets 0 for every reducer, and Mean
// divides by max(in-degree, 1). Sub and Div run in the kernels: no negated or
// inverted copy of the right operand is built (DGL builds one).
//
// # Gradients
//
// Every op implements gorgonia.SDOp, and its gradient is built from the same
// ops on the reversed graph (SpMM's gradient is an SpMM on g.Reverse() and an
// SDDMM; SDDMM's is a copy_e or u_mul_e SpMM), so compositions differentiate
// under gorgonia.Grad and a TapeMachine. Max and Min route the gradient to the
// winning edge (ties go to the smallest edge ID) through backward-only ops, as
// does the fused edge-softmax backward; those are not differentiable again.
// Second-order gradients are not supported: Gorgonia v0.9.18's nested Grad
// gets them wrong even for its own ops (with a TapeMachine, (x*w)^2
// differentiated twice in w gives 36 at x = 3 instead of 2x^2 = 18, and
// w*w*w gives 4 at w = 2 instead of 6w = 12).
//
// The graph is held inside each op, not as an input node, and its ID goes into
// the op's hash, so ops over different graphs never merge. Use the
// TapeMachine: the ops implement no DoDiff for the LispMachine.
package ops
