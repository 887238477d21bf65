// Package vm runs Gorgonia expression graphs on the CPU without
// reallocating their values on every run, and frees each value once the
// last op that reads it has run.
//
// # Why a machine of our own
//
// Gorgonia's TapeMachine (v0.9.18, its last release) allocates every op's
// output afresh on every run and keeps every intermediate until the run
// ends: on the CPU its instructions' preAllocated flag is never set, its
// registers are dropped by Reset, and neither can be changed from outside
// the gorgonia package. Where it does reuse a register within a run it
// knows nothing of views, and it overwrites values the backward pass still
// reads: on a graph tanh(a + a*a) with its gradient, the tape's value of
// the tanh node, a root, comes back overwritten by the backward's
// in-place ops, and a graph that keeps a reshape of a across later ops
// leaves a, a*a and the reshape all holding the final sum (TestViews
// checks that a Machine gets it right). Gorgonia's design allows several
// machines over one graph, so this package is one.
//
// # What a Machine does
//
// New takes the nodes to compute (the roots); the Machine runs the nodes
// SubgraphRoots of them needs, in the tape's topological order, with the
// ops' own methods, and binds each output to its node (UnsafeLet), where
// callers read it with Value as before:
//
//   - An op that can write into a buffer it is given does so: gnn's ops,
//     through internal/opkit (IntoDoer), and Gorgonia's element-wise and
//     matrix-product ops (gorgonia.UsePreallocDoer; other Gorgonia ops'
//     UsePreallocDo does not always overwrite its buffer). Buffers come
//     from a Pool keyed by dtype and number of elements.
//   - Liveness: a value goes back to the pool after the last step that
//     reads it, unless it is a root or kept (WithKeep). A value that lies
//     in an input's memory (a reshape, a slice, the input itself) shares
//     the input's buffer, which is freed when both are dead. Memory an op
//     allocated itself is left to the garbage collector.
//   - The pool outlives the run, and gets and puts come in the same order
//     every run, so from the second run on every op writes into the buffer
//     it wrote the run before: a steady-state run allocates no tensors.
//     Machines that run in turn (a training step and an evaluation) can
//     share a pool (WithPool) and hold the larger of their needs.
//
// Gradients are nodes of the same graph (gorgonia.Grad), so a training
// step is one run over the loss and the gradients; ValueGrads hands the
// gradients to a gorgonia.Solver without dual values. Results are those
// of the tape to the bit (nn/train's golden loss traces, TestMatchesTape).
//
// # Measured
//
// On this project's 2-core machine, shared and loaded (load average
// 13-28), cmd/gnnbench with sparse input and dropout off, before (tape
// machine, dual values) and after (this package), interleaved runs. CPU
// time per epoch (process CPU of 300 epochs minus 5, or 200 minus 5; the
// wall-clock medians swung 3x with the load):
//
//	Cora GCN      4.6-5.6 ms -> 3.4-4.3 ms (-23% to -26%)
//	Cora GAT      16.6 ms    -> 11.9 ms    (-28%)
//	PubMed GAT    253 ms     -> 180 ms     (-29%)
//	PubMed GCN    31.0 ms    -> 30.7 ms
//	200K-node GAT (2.2M edges, 8 heads of 8): 2.83 s -> 2.75 s
//
// Peak RSS: Cora GAT 56 -> 38 MiB, PubMed GAT 276 -> 121 MiB, the
// 200K-node GAT 1.85 GiB -> 593 MiB. Bytes allocated per steady-state
// epoch of nn/train.Fit (training step and evaluation) on a 2000-node
// graph: GCN 4.2 MB -> 0.14 MB, GAT 9.0 MB -> 0.20 MB, 4% of the live
// heap; most of what is left is Gorgonia's Adam's temporaries.
package vm
