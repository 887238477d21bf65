// Package sparse holds the Go launchers of gnn's sparse kernels on a
// device (gpu/internal/cuda, real or emulated): SpMM, SDDMM, edge softmax
// and GAT's fused attention, forward and backward, in float32 and
// float64, with the semantics of the CPU kernel packages ops/spmm,
// ops/sddmm and ops/edgesoftmax (their enums, broadcast plans, zero
// in-degree rules and the arg rule of Max and Min). It is built only with
// the gnncuda build tag.
//
// A Graph is a *graph.Graph uploaded once: its in-edge view (rows are
// destinations) and out-edge view (rows are sources) as int32 CSR arrays
// with edge IDs, and both endpoints of every edge. Reverse swaps them
// without a copy, so the gradient of copy_u + sum is copy_u + sum on
// g.Reverse(), as on the CPU. Operands are Bufs (a device pointer and a
// length); launchers check every length against the graph and the plan
// and return errors, since kernels cannot.
//
// Kernels (gpu/kernels/spmm.cu, sddmm.cu, softmax.cu) give each thread one
// output element of one row: a destination row for SpMM and the softmaxes,
// an edge row for SDDMM, a source row (over its out-edges) for the
// gradient of u, an edge for that of e. The thread reduces over the row's
// edges in increasing edge ID, in registers, and writes its element once:
// there are no atomics, so results are deterministic, and consecutive
// threads read consecutive elements of the gathered rows, so loads
// coalesce for rows of 32 elements or more. float32 copy_u sums of rows of
// a multiple of four elements at 16-byte aligned addresses (GCN's
// aggregation) take a kernel with four elements per thread and one 16-byte
// load per edge, adding in the same order, so with the same bits.
// Broadcasting goes through
// strides recovered from the bcast.Plan (at most four feature dims after
// merging), not offset tables, so no per-call table crosses to the device.
// Gradients are computed directly (each du element walks its source's
// out-edges and the output elements that read it) rather than as separate
// SpMM, SDDMM and sum-to passes; they equal the CPU's compositions within
// rounding.
//
// Launchers return once the kernel is queued; errors a kernel raises on a
// GPU surface at the context's next Sync or copy to the host.
package sparse
