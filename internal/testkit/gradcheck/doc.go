// Package gradcheck holds what the tests of gnn's ops, message passing and
// layers share: small fixture graphs, input nodes in float32 or float64 made
// from float64 values, reading and writing node values as float64, drawing
// test values, comparing with a relative tolerance, and the check of the
// gradients gorgonia.Grad builds against central finite differences.
//
// The gradient check (Check) evaluates the cost sum(out ⊙ R), R random, on a
// TapeMachine. In float64 it compares every gradient element with a central
// difference of step 1e-6, to 1e-6 relative to max(1, |fd|). In float32 it
// compares the gradients with the float64 ones on the same inputs (every
// input is rounded to float32 first, so both dtypes see the same numbers),
// and, where the function is smooth, with central differences of step 1e-2,
// to 2e-2: a step that float32 can resolve may cross a kink of a piecewise
// linear function (max, ReLU), so Options.NonSmooth leaves that out.
// Check also reads the output after the gradient run and compares it with a
// forward-only run: Gorgonia's TapeMachine lets a backward op that
// overwrites its input reuse the buffer of a node it reads last, and in
// Gorgonia v0.9.18 the backward passes of Mean, HadamardDiv (and its
// broadcast form), Inverse, Exp, Sqrt, Tanh and Sigmoid overwrite their own
// forward output that way.
//
// It is a normal package, not a test file, so that the tests of several
// packages can share it; it imports package testing and is for tests only.
package gradcheck
