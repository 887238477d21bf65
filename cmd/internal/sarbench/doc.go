// Package sarbench is the benchmark of distributed training with dist/sar
// that cmd/sarbench and gnnbench's sar suite run: for each rank count,
// model and aggregation mode it runs examples/sar (built with -tags mpi)
// under mpirun, one process per rank, and tabulates the largest and mean
// per-worker peak RSS, the largest worker's live heap at the end of an
// epoch (after a garbage collection), the peak's ratio to the one-rank
// run of the same model and mode, the epoch time, and the bytes sent per
// epoch against the least the aggregations could have sent
// (sar.Graph.LeastBytes). The partitions come from cmd/gnnpart, one
// directory per rank count.
//
// Oversubscribed on a small machine the times are for the record; the
// memory is the figure that counts.
package sarbench
