// Package mp is gnn's DGL-style message-passing API: feature data bound to
// a graph by name, and the routines that send messages along edges, reduce
// them on nodes and apply functions to nodes and edges, built as Gorgonia
// expression graphs that gorgonia.Grad differentiates.
//
//	f, _ := mp.NewFrame(g)
//	f.NodeData().Set("h", x)                 // one row per node
//	f.EdgeData().Set("w", w)                 // one row per edge ID
//	f.UpdateAll(fn.UMulE("h", "w", "m"), fn.Sum("m", "h"), nil)
//	h, _ := f.NodeData().Get("h")            // sum of w_e * h_u over in-edges
//
// # Frames
//
// A Frame holds named fields: NodeData on a homogeneous graph, SrcData and
// DstData on a bipartite graph or block, and EdgeData. Message passing
// reads source, destination and edge fields and writes destination fields.
// Local runs a function on a copy of the frame, so temporary fields
// disappear afterwards (DGL's local_scope). A routine that fails returns an
// error naming the field, shape or function at fault and leaves the frame
// unchanged; nothing here panics on user input.
//
// # Routines
//
// UpdateAll(message, reduce, apply) sends a message along every edge,
// reduces the messages of every destination node and optionally applies a
// node function to the result. SendAndRecv, Pull and Push do the same on a
// subset of edges (given, into given nodes, out of given nodes): only the
// destinations reached are updated, the others keep their fields. ApplyEdges
// and ApplyNodes compute fields on edges and nodes, ApplyEdgesOn and
// ApplyNodesOn on subsets.
//
// # Heterographs
//
// A HeteroFrame holds one node store per node type and one edge store per
// edge type of a hetero.Graph. MultiUpdateAll runs a Pass (message, reduce,
// apply) on each chosen relation exactly as UpdateAll runs it on that
// relation's graph, then combines, per destination type, the relations'
// results with a CrossReducer: sum, mean, max, min or stack (DGL's
// multi_update_all). Relation returns a Frame over one relation whose
// stores are the heterograph's.
//
// # Builtins and the scheduler
//
// Builtin messages and reducers (package ops/fn) let the scheduler pick a
// kernel, as DGL's does:
//
//	message                           reducer               runs as
//	copy_u, copy_e, u_OP_e, e_add_u,  sum, mean, max, min   one ops.SpMM (fused)
//	e_mul_u (OP add, sub, mul, div)   prod                  one fused product op
//	any other builtin message         any builtin reducer   ops.SDDMM onto the
//	                                                        edges, then a copy_e
//	                                                        SpMM or product
//
// The fused paths store no message per edge, forward or backward (apart
// from the negated or inverted edge operand of u_sub_e and u_div_e, as in
// DGL); prod's backward forms the gradient of each message, one row per
// edge. Products are exact with zeros: prod is computed by multiplication
// and its gradient from prefix and suffix products, never from logarithms.
// A dot message keeps its reduced dimension with size 1, as in DGL.
//
// # User-defined functions
//
// An EdgeFunc receives an EdgeBatch and returns fields with one row per
// edge; it reads source, destination and edge fields, gathered onto the
// edges when it asks for them. The gather's gradient is a scatter-add onto
// the nodes (a copy_e SpMM on the reversed graph).
//
// A NodeFunc used as a reducer is called once per bucket of destination
// nodes. By default a bucket holds every node of one in-degree d (DGL's
// degree bucketing), and its mailbox is a (nodes, d, features...) tensor of
// the messages in increasing edge-ID order. Frame.SetBatching switches to
// degree padding: buckets of degree ranges, mailboxes padded to the largest
// degree with a given value, which makes fewer, larger calls on graphs with
// high degree variance. The results are reassembled in node order by a
// differentiable op. Nodes with no in-edges get the frame's initial value
// (Frame.SetInitial, 0 by default) instead of a reduce call, for builtin
// and user-defined reducers alike.
//
// The user-defined path stores every message per edge and gathers them into
// mailboxes: a training step of u_mul_e + sum written as functions
// allocates about six E x F tensors where the fused builtin allocates none
// (BenchmarkUpdateAll). The buckets' gathers of one tensor share a single
// gradient of its size rather than one each.
//
// # Gorgonia notes
//
// Gorgonia v0.9.18's Slice returns a scalar value for a one-element result,
// which its other ops reject: in a reduce function, prefer reductions over
// the mailbox's degree axis (gorgonia.Sum(mb, 1), gorgonia.Max(mb, 1)) to
// slicing it column by column when a bucket may hold one node with one
// feature. Values read after a TapeMachine ran the backward pass may have
// been overwritten in place by it; read forward values from a run without
// gradients.
package mp
