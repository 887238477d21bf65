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
//     through internal/ops/opkit (IntoDoer), and Gorgonia's element-wise and
//     matrix-product ops (gorgonia.UsePreallocDoer; other Gorgonia ops'
//     UsePreallocDo does not always overwrite its buffer).
//   - Liveness: a value's buffer is free after the last step that reads
//     it, unless it is a root or kept (WithKeep). A value that lies in an
//     input's memory (a reshape, a slice, the input itself) shares the
//     input's buffer, which is freed when both are dead. Memory an op
//     allocated itself is left to the garbage collector.
//   - A plan made once in New (plan.go) gives every such step a slot:
//     values whose lives do not overlap share a slot's buffer, a smaller
//     one as a view of its first elements, taken largest value first into
//     the smallest slot that is free for its whole life. The slots hold
//     about what a run's busiest moment needs, where buffers handed out
//     first come first served would hold a buffer of every size at its
//     moment (10.3 GB against a peak of 6.95 GB on the products-sized
//     GAT). A step whose slot still holds a live value (a view kept an
//     input alive) takes a buffer from the Pool instead: by dtype and
//     size, or a view of the smallest free one of up to four times its
//     size.
//   - A run borrows its slots' buffers from the pool and gives them back
//     when it ends, in the same order every run, so from the second run
//     on every op writes into the buffer it wrote the run before: a
//     steady-state run allocates no tensors. Machines that run in turn (a
//     training step and an evaluation) can share a pool (WithPool) and
//     hold the larger of their needs.
//   - An op that can write its output over an input (Overwriter, gnn's
//     ops through opkit.Overwrite: the cross-entropy gradient over the
//     logits) is handed that input's tensor when no later step reads it,
//     and its output then takes no buffer of its own.
//   - Reset ends a run: the buffers of its kept values (the roots) go
//     back to the pool, so that a machine sharing it runs in them (nn/train
//     resets the training step after the optimiser has read the gradients,
//     and the evaluation after the metrics).
//   - New takes and gives back the slots' buffers once and maps their
//     pages, so the first run does not allocate either: a first training
//     step costs about what the next ones do.
//
// Gradients are nodes of the same graph (gorgonia.Grad), so a training
// step is one run over the loss and the gradients; ValueGrads hands the
// gradients to a gorgonia.Solver without dual values. Results are those
// of the tape to the bit (nn/train's golden loss traces, TestMatchesTape).
//
// # Measured
//
// On this project's 2-core machine, shared and loaded (load average
// 13-28, so that wall-clock medians swung 3x between runs), cmd/gnnbench
// with sparse input and dropout off, before (tape machine, dual values)
// and after (this package). Process CPU time per epoch (a run of 405
// epochs minus one of 5, or 205, 63, 23 minus 5 or 3; median of three
// interleaved rounds):
//
//	Cora GCN      4.90 ms -> 3.65 ms (-25%)
//	Cora GAT      17.3 ms -> 11.6 ms (-33%)
//	PubMed GCN    31.2 ms -> 23.0 ms (-26%)
//	PubMed GAT    215 ms  -> 202 ms  (-6%; another three rounds +5%: the same)
//	200K-node GAT (2.2M edges, 8 heads of 8): 2.83 s -> 2.75 s
//
// Peak RSS: Cora GCN 33 -> 27 MiB, Cora GAT 53 -> 40 MiB, PubMed GCN
// 116 -> 61 MiB, PubMed GAT 270 -> 120 MiB, the 200K-node GAT 1.85 GiB ->
// 593 MiB, a 200K-node GCN (hidden 64) 1.03 GiB -> 506 MiB. Bytes
// allocated per steady-state epoch of nn/train.Fit (training step and
// evaluation) on Cora with dense features: GCN 36.5 MB (103% of the live
// heap) -> 0.60 MB (1.7%), GAT 43.2 MB (106%) -> 1.1 MB (2.8%), most of
// it Gorgonia's Adam's temporaries.
package vm
