// Package opkit holds the pieces every gnn Gorgonia op shares. An op is a
// Spec (name, hash key, shapes, Do or, for an Into, DoInto alone and, for a
// forward op, Grad, which builds the gradient from separate backward ops,
// as Gorgonia's own softmaxOp and softmaxDiffOp); New and Apply turn it
// into the gorgonia.Op the graph holds, whose methods are written once
// here: arity, a fresh function type, the graph-building shape check,
// hashing, the CPU-only flags.
package opkit
