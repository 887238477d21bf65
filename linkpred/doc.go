// Package linkpred prepares the data of link prediction: edge splits and
// negative samples.
//
// SplitEdges splits a graph's edges into training, validation and test
// message-passing graphs and positive supervision pairs, with the semantics
// of PyG's RandomLinkSplit: the training message-passing graph holds the
// training edges (less a disjoint supervision part, disjoint_train_ratio),
// validation passes messages over all training edges and test over training
// and validation edges, so a validation or test edge never passes messages
// in its own split or an earlier one. With Undirected, an edge and its
// reverse form one pair that always falls in one split. SplitRelation does
// the same for one relation of a heterograph, taking the named reverse
// relation's edges along with their forward edges.
//
// The negative samplers (Uniform, DegreeWeighted, InBatch) satisfy Sampler,
// the contract the edge-seed loader of package sampling consumes: k
// negatives per positive pair, corrupting the destination, the source, or
// either (CorruptEither, as knowledge-graph completion does). Exclude turns
// on exact exclusion of existing edges: a candidate is looked up by binary
// search in the exclusion graph's neighbour row, sorted once (no hash set of
// all edges). Rejected candidates are redrawn up to MaxTries times; after
// that the positive's valid candidates are enumerated and drawn from, which
// gives the same distribution, so a dense row is slower, never biased, and a
// positive without enough valid candidates is an error naming it.
// NegativeEdges is the one-shot counterpart of PyG's negative_sampling.
//
// Every random choice is drawn from counter-based streams keyed by the seed
// and the position (of the positive, or of the split), so results depend
// only on the inputs and the seed, whatever GOMAXPROCS is; negatives are
// drawn in parallel over positives.
package linkpred
