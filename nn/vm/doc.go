// Package vm runs Gorgonia expression graphs on the CPU without
// reallocating their values on every run.
//
// Gorgonia's TapeMachine (v0.9.18, its last release) allocates every
// op's output afresh on every run and keeps all of them until the run
// ends: its instructions' preAllocated flag is never set on the CPU, and
// its registers are dropped by Reset. Neither can be changed from outside
// the gorgonia package. A Machine runs the same graph (the nodes
// SubgraphRoots of its roots needs, in the tape's topological order) with
// the ops' own Do methods, and manages the memory itself:
//
//   - An op that implements gorgonia.UsePreallocDoer (Gorgonia's
//     element-wise and linear-algebra ops, and every gnn op built on
//     internal/opkit) writes into a buffer from the machine's pool, keyed
//     by dtype and number of elements.
//   - Liveness: a value goes back to the pool after the last step that
//     reads it, unless it is a root or kept (WithKeep). A value that is a
//     view of an input (a reshape, or the input itself) shares the input's
//     buffer, which is freed when both are dead. Memory an op allocated
//     itself is left to the garbage collector.
//   - The pool outlives the run, and the order of gets and puts is the
//     same every run, so from the second run on every op writes into the
//     buffer it wrote the run before and a steady-state run allocates no
//     tensors.
//
// Gradients are nodes of the same graph (gorgonia.Grad), so a training
// step is one run over the loss and the gradients; ValueGrads hands the
// gradients to a gorgonia.Solver without dual values.
//
// Measured on Cora (2-core machine; cmd/gnnbench, 50 epochs, sparse
// input, dropout off; see the commit that introduced the package for the
// full figures), against the tape machine: see nn/train's use.
package vm
