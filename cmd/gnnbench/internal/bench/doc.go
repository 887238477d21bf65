// Package bench builds and times the models and kernels of gnn's
// benchmark harness (cmd/gnnbench): one Spec describes one run, Run
// executes it in the calling process and returns a Result.
//
// Every model is built three ways, on the same data, parameters and
// initialisation, so that their epoch times can be compared side by side:
//
//   - Fused: gnn's layers (nn/gcn GraphConv, nn/gat GATConv) on the fused
//     SpMM, SDDMM and edge-softmax ops; no tensor has one row per edge and
//     feature.
//   - Unfused: the same model written with package mp's user-defined
//     functions, as DGL v0.2 and PyG's gather-scatter ran it: an edge
//     function gathers the source features onto every edge (EdgeBatch.Src)
//     and multiplies them by the edge's normaliser (GCN) or computes the
//     edge's attention logit (GAT), and a node function reduces the
//     degree-bucketed mailbox (a sum, or for GAT a softmax over the mailbox
//     and a weighted sum), so messages are materialised per edge, forward
//     and backward.
//   - Dense: what a Gorgonia user writes today without sparse support. GCN
//     multiplies by the normalised adjacency D^-1/2 (A+I) D^-1/2 held as a
//     dense N x N float32 input node (gorgonia.Mul, as pygcn's
//     torch.spmm(adj, x W)). GAT follows pyGAT: for every head an N x N
//     score matrix LeakyReLU(er 1^T + 1 el^T) (one BroadcastAdd), plus a
//     constant N x N mask bias (log of the edge multiplicity on edges,
//     -9e15 elsewhere), a row SoftMax, attention dropout, and
//     gorgonia.Mul with the head's features; the heads are concatenated.
//
// The three give the same loss, up to rounding, without dropout (the
// package's tests check it), so their epoch times measure one computation.
//
// An epoch is a forward pass, the backward pass and an Adam step, run by
// nn/train's Stepper as nn/train.Fit runs them (an nn/vm machine over the
// loss and the gradients on the host), without the evaluation pass. Kernel runs (Spec.Model spmm, sddmm, edgesoftmax) time
// one forward call of gnn's kernel (fused), of a gather-then-reduce
// over a materialised per-edge tensor (unfused), or of the dense N x N
// equivalent (dense).
package bench
