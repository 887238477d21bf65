// Package ops_test checks gnn's Gorgonia ops from outside: forward values
// against naive per-edge references, gradients through gorgonia.Grad and a
// TapeMachine against central finite differences, op hashing, edge cases and
// allocation discipline.
package ops_test
