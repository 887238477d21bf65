package linkpred

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
)

// DegreeWeighted draws negatives whose corrupted endpoint is a node chosen
// with probability proportional to its degree raised to a power (0.75 by
// default, word2vec's and PinSAGE's unigram^0.75): a new destination by
// in-degree, a new source by out-degree, both counted in the sampler's
// graph. Nodes of degree zero are never drawn. Draws are O(1) from alias
// tables built once. It satisfies Sampler and is safe for concurrent use.
type DegreeWeighted struct{ c core }

var _ Sampler = (*DegreeWeighted)(nil)

// NewDegreeWeighted returns a degree-weighted sampler of k negatives per
// positive over g. Options: Power (the exponent), Exclude, ExcludeSelfLoops,
// Distinct, WithCorrupt, MaxTries. Exclusion and its fall-back work as for
// NewUniform, the enumerated candidates keeping their weights.
//
// It returns an error when k <= 0, g is nil or has no edges (no node has a
// positive degree), the exclusion graph's node counts differ from g's, or an
// option is invalid.
func NewDegreeWeighted(g *graph.Graph, k int, opts ...Option) (*DegreeWeighted, error) {
	c, cfg, err := newCore(g, k, opts)
	if err != nil {
		return nil, err
	}
	if g.NumEdges() == 0 {
		return nil, fmt.Errorf("linkpred: degree-weighted negatives need a graph with edges, %v has none", g)
	}
	if c.corrupt != CorruptSrc {
		c.spaces[sideDst] = weightedSpace(g.InDegrees(), cfg.power)
	}
	if c.corrupt != CorruptDst {
		c.spaces[sideSrc] = weightedSpace(g.OutDegrees(), cfg.power)
	}
	return &DegreeWeighted{c: *c}, nil
}

// weightedSpace is the space of nodes weighted by degree^power; power 0
// weighs every node of positive degree equally.
func weightedSpace(deg []int64, power float64) space {
	w := make([]float64, len(deg))
	for i, d := range deg {
		if d > 0 {
			w[i] = math.Pow(float64(d), power)
		}
	}
	return space{n: len(deg), alias: newAlias(w), weight: w, skip: -1}
}

// K returns the number of negatives per positive.
func (d *DegreeWeighted) K() int { return d.c.k }

// Negatives returns k negatives for each positive (src[i], dst[i]) as
// Uniform.Negatives does, drawn by degree.
func (d *DegreeWeighted) Negatives(src, dst []int32, seed uint64) (negSrc, negDst []int32, err error) {
	return d.c.negatives(src, dst, seed)
}
