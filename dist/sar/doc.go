// Package sar trains graph neural networks on a graph split across the
// ranks of a comm.Comm, as SAR (sequential aggregation and
// rematerialisation) does: each worker holds its own nodes and the edges
// coming into them, grouped in one shard per source rank, and a layer's
// aggregation visits the shards one at a time in ring order, fetching only
// the source rows a shard needs and prefetching the next shard while the
// current one is aggregated. The backward pass fetches the rows again
// shard by shard where it needs them and sends the gradients of remote
// rows back to their owners, so no worker ever holds more than two remote
// shards' features.
//
// A Graph is built from a partition.Part and a comm.Comm, and the layers of
// nn/gcn, nn/gat, nn/sage, nn/gin, nn/tag and nn/appnp take it where they
// take a *graph.Graph.
// OneShot mode fetches all remote rows at once instead (the baseline); Block
// and Halo give the worker's edges as one graph and a feature tensor the
// rows of its remote sources, so that single-process ops run on the whole
// partition, as on SAR's DistributedBlock. Fit trains a model with
// replicated parameters across the ranks.
//
// Memory from one run to the next: the ops write their results into the
// buffers an nn/vm machine gives them (opkit.Into; nn/train trains a rank
// on nn/vm), GATAggregate keeps its working buffers in the Graph, which
// its layers share, and the ring's messages and a shard's own rows reuse
// buffers kept by the Graph, so a steady-state epoch allocates little
// beyond the bytes comm receives.
package sar
