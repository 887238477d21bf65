package linkpred

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
)

// Uniform draws negatives whose corrupted endpoint is uniform over the
// graph's destination nodes (or source nodes, with CorruptSrc): DGL's
// Uniform(k) and PyG's negative_sampling. It satisfies Sampler and is safe
// for concurrent use.
type Uniform struct{ c core }

var _ Sampler = (*Uniform)(nil)

// NewUniform returns a uniform sampler of k negatives per positive over g's
// nodes. Options: Exclude (exact exclusion of an edge set), ExcludeSelfLoops,
// Distinct, WithCorrupt, MaxTries; Power is an error here.
//
// With exclusion, a negative is drawn uniformly from the valid candidates
// (those not excluded): up to MaxTries draws are rejected, after which the
// candidates of that positive are enumerated and drawn from, which is the
// same distribution, so dense rows cost time, never bias. A positive with no
// valid candidate at all, or with Distinct fewer than k, makes Negatives
// return an error naming it.
//
// NewUniform returns an error when k <= 0, g is nil or has no node on the
// corrupted side, the exclusion graph's node counts differ from g's, or an
// option is invalid.
func NewUniform(g *graph.Graph, k int, opts ...Option) (*Uniform, error) {
	c, cfg, err := newCore(g, k, opts)
	if err != nil {
		return nil, err
	}
	if cfg.powerSet {
		return nil, fmt.Errorf("linkpred: Power applies to DegreeWeighted, not Uniform")
	}
	c.spaces[sideDst] = space{n: g.NumDst(), skip: -1}
	c.spaces[sideSrc] = space{n: g.NumSrc(), skip: -1}
	if err := c.checkSpaces(g); err != nil {
		return nil, err
	}
	return &Uniform{c: *c}, nil
}

// K returns the number of negatives per positive.
func (u *Uniform) K() int { return u.c.k }

// Negatives returns k negatives for each positive (src[i], dst[i]), pairs
// i*k to i*k+k-1 for positive i, deterministic for (src, dst, seed)
// whatever GOMAXPROCS is (each positive draws from its own stream of seed).
// It returns an error when the slices differ in length, a node ID is out of
// range (naming the position and value), or a positive has too few valid
// negatives (see NewUniform).
func (u *Uniform) Negatives(src, dst []int32, seed uint64) (negSrc, negDst []int32, err error) {
	return u.c.negatives(src, dst, seed)
}

// newCore checks the arguments every graph sampler shares and sets up
// exclusion.
func newCore(g *graph.Graph, k int, opts []Option) (*core, config, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, cfg, err
	}
	if g == nil {
		return nil, cfg, fmt.Errorf("linkpred: nil graph")
	}
	if k <= 0 {
		return nil, cfg, fmt.Errorf("linkpred: k = %d negatives per positive, need at least 1", k)
	}
	c := &core{k: k, corrupt: cfg.corrupt, numSrc: g.NumSrc(), numDst: g.NumDst(), group: group,
		noSelfLoops: cfg.noSelfLoops, distinct: cfg.distinct, tries: cfg.tries}
	if err := c.setExclusion(cfg.exclude, g.NumSrc(), g.NumDst()); err != nil {
		return nil, cfg, err
	}
	return c, cfg, nil
}

// setExclusion builds the sorted rows of ex that the corruption mode needs.
func (c *core) setExclusion(ex *graph.Graph, numSrc, numDst int) error {
	if ex == nil {
		return nil
	}
	if ex.NumSrc() != numSrc || ex.NumDst() != numDst {
		return fmt.Errorf("linkpred: exclusion graph has %d source and %d destination nodes, the sampler's %d and %d",
			ex.NumSrc(), ex.NumDst(), numSrc, numDst)
	}
	if c.corrupt != CorruptSrc {
		c.out = sortedRows(ex.CSR())
	}
	if c.corrupt != CorruptDst {
		c.in = sortedRows(ex.CSC())
	}
	return nil
}

// checkSpaces returns an error when a side the sampler corrupts has no
// candidate.
func (c *core) checkSpaces(g *graph.Graph) error {
	if c.corrupt != CorruptSrc && c.spaces[sideDst].size() == 0 {
		return fmt.Errorf("linkpred: no destination node to draw negatives from in %v", g)
	}
	if c.corrupt != CorruptDst && c.spaces[sideSrc].size() == 0 {
		return fmt.Errorf("linkpred: no source node to draw negatives from in %v", g)
	}
	return nil
}
