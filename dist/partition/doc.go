// Package partition divides a graph among the ranks of a distributed job,
// the way SAR (Sequential Aggregation and Rematerialization) expects it.
//
// An owner array assigns every node to a rank. Split turns it into one Part
// per rank: the rank's nodes in global order (their local IDs), their global
// in- and out-degrees, and N edge shards, shard j holding the edges from rank
// j's nodes into this rank's nodes, with sources as local IDs of rank j. So
// a rank holds exactly the edges incoming to its nodes, and its sequential
// aggregation visits the shards one source rank at a time.
// SplitDataset also hands each rank its nodes' features, labels and split.
package partition
