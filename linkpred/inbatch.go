package linkpred

import (
	"fmt"
	"math"
)

// InBatch draws in-batch negatives: the corrupted endpoint of a negative of
// positive i is the destination (or, with CorruptSrc, the source) of another
// positive of the same call, chosen uniformly among the other positions, so
// nodes appear as often as they do in the batch. It satisfies Sampler and is
// safe for concurrent use.
type InBatch struct{ c core }

var _ Sampler = (*InBatch)(nil)

// NewInBatch returns an in-batch sampler of k negatives per positive.
// Options: Exclude (reject negatives that are edges of a graph, which then
// also bounds the node IDs), ExcludeSelfLoops, Distinct (k distinct pairs;
// with Distinct and no exclusion, a batch of n positives gives at most n-1
// negatives per positive), WithCorrupt, MaxTries; Power is an error. Without
// Exclude, node IDs need only be non-negative.
//
// Negatives returns an error for a batch of one positive (there is no other)
// and, as Uniform does, for a positive with too few valid negatives.
func NewInBatch(k int, opts ...Option) (*InBatch, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, fmt.Errorf("linkpred: k = %d negatives per positive, need at least 1", k)
	}
	if cfg.powerSet {
		return nil, fmt.Errorf("linkpred: Power applies to DegreeWeighted, not InBatch")
	}
	c := core{k: k, corrupt: cfg.corrupt, numSrc: math.MaxInt32, numDst: math.MaxInt32, group: group,
		noSelfLoops: cfg.noSelfLoops, distinct: cfg.distinct, tries: cfg.tries, inBatch: true}
	if ex := cfg.exclude; ex != nil {
		c.numSrc, c.numDst = ex.NumSrc(), ex.NumDst()
		if err := c.setExclusion(ex, ex.NumSrc(), ex.NumDst()); err != nil {
			return nil, err
		}
	}
	return &InBatch{c: c}, nil
}

// K returns the number of negatives per positive.
func (b *InBatch) K() int { return b.c.k }

// Negatives returns k negatives for each positive (src[i], dst[i]) drawn
// from the other positives of the call, pairs i*k to i*k+k-1 for positive
// i, deterministic for (src, dst, seed) whatever GOMAXPROCS is.
func (b *InBatch) Negatives(src, dst []int32, seed uint64) (negSrc, negDst []int32, err error) {
	return b.c.negatives(src, dst, seed)
}
