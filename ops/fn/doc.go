// Package fn holds gnn's builtin message and reduce functions, the
// placeholders of DGL's dgl.function: a message says which operands an edge
// combines and under which name the result is stored, a reducer says how the
// messages arriving at a node are aggregated.
//
//	mp.UpdateAll(fn.UMulE("h", "w", "m"), fn.Sum("m", "h"), nil)
//
// The functions compute nothing themselves. The message-passing routines of
// package mp read them, detect the combination and run the fused kernel of
// package ops when there is one (u_OP_e, copy_u and copy_e with sum, mean,
// max or min), so that no per-edge message is ever stored.
//
// # Messages
//
// An operand lives on the source node of an edge (u), its destination node
// (v) or the edge itself (e). CopyU, CopyV and CopyE copy one field; the
// binary messages X<Op>Y combine field lhs of operand X with field rhs of
// operand Y by Add, Sub, Mul, Div or Dot, for X and Y in u, v, e (UMulE is
// DGL's u_mul_e). Feature dimensions broadcast by NumPy rules, and Dot sums
// the product over the last feature dimension and keeps it with size 1, as
// DGL does: (N, H, D) with (N, H, D) gives (E, H, 1).
//
// # Reducers
//
// Sum, Mean, Max and Min are DGL's reducers; Prod, the product of the
// messages, is not in DGL (its seed design lists it). A node with no
// incoming message gets the frame's initial value (0 unless changed) for
// every reducer.
//
// Message and Reducer are plain values: build them once and reuse them.
// Field names are checked when a routine runs, not here.
package fn
