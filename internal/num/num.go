// Package num holds the numeric type constraint shared by gnn's generic
// kernels, the exponential of their softmaxes (ExpSum) and the degree
// normalisation (DegreeFactor).
package num

// Float is the element type of every gnn kernel: one generic implementation
// serves float32 and float64.
type Float interface{ ~float32 | ~float64 }
