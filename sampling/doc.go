// Package sampling draws the mini-batches of sampled training (DGL's
// sample_neighbors, to_block, MultiLayerNeighborSampler and DataLoader; PyG's
// NeighborLoader): neighbour sampling around seed nodes, message-flow
// blocks, a multi-layer sampler, a loader of seed-node batches and one of
// seed-edge batches for link prediction.
//
// SampleNeighbors draws, for every seed node, a fan-out of its in-edges (or
// out-edges): uniformly with or without replacement, or in proportion to an
// edge-weight column, never drawing excluded edges. ToBlock turns the
// sampled edges into a Block, a bipartite graph whose destinations are the
// seeds and whose sources are the seeds followed by the other sampled
// neighbours, with maps back to the parent graph's node and edge IDs, as
// DGL's to_block. MultiLayer chains one such step per layer, from the output
// layer back to the input layer, and Loader cuts a set of seed nodes into
// shuffled batches, sampling the next batch in a goroutine while the
// current one is used. The features of a batch's InputNodes and the labels
// of its OutputNodes are taken with dataset's Features.Gather and
// GatherLabels, without copying the whole tables.
//
// For link prediction, EdgeLoader cuts a set of seed edges into batches
// (DGL's as_edge_prediction_sampler, PyG's LinkNeighborLoader): it draws
// negative pairs with a NegativeSampler, samples one block stack over the
// union of all endpoints, and returns the positive and negative pairs as
// graphs over the blocks' output nodes. It can keep the batch's seed edges,
// and their reverse edges (ReverseEdgeIDs, ReverseRelationEdgeIDs), out of
// every block, so that a model is not shown the edges it must predict.
//
// Every draw depends only on the seed given and on the seed node's position
// in the batch, never on how the work is spread over goroutines: the same
// seed gives the same blocks for any GOMAXPROCS. Sampling runs in parallel
// over seed nodes.
package sampling
