// Package opkit holds the pieces every gnn Gorgonia op shares: the methods
// of an op computed on the CPU into fresh outputs, function types, hashing
// and the graph-building shape check.
package opkit
