package linkpred

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/enum"
)

// Sampler is the negative-sampler contract: the edge-seed loader of package
// sampling consumes any type with this method (sampling.NegativeSampler).
//
// Negatives returns k negative pairs for every positive pair (src[i],
// dst[i]), k fixed by the sampler: pairs i*k to i*k+k-1 of (negSrc, negDst)
// belong to positive i. The result depends only on the inputs and seed,
// whatever GOMAXPROCS is. The slices are new; src and dst are only read.
type Sampler interface {
	Negatives(src, dst []int32, seed uint64) (negSrc, negDst []int32, err error)
}

// Corrupt says which endpoint of a positive pair a negative replaces.
type Corrupt int

const (
	// CorruptDst keeps the source and draws a new destination (PyG's
	// negative_sampling, DGL's Uniform): the default.
	CorruptDst Corrupt = iota
	// CorruptSrc keeps the destination and draws a new source.
	CorruptSrc
	// CorruptEither flips a fair coin for every negative, as knowledge-graph
	// completion corrupts the head or the tail.
	CorruptEither
)

// String returns the mode's name.
func (c Corrupt) String() string {
	return enum.Name(c, "Corrupt", "dst", "src", "either")
}

// DefaultMaxTries is the number of rejected draws after which a sampler
// stops drawing blindly for a positive and enumerates its valid candidates.
const DefaultMaxTries = 32

// Option configures a negative sampler.
type Option func(*config)

// config holds the options of a sampler.
type config struct {
	exclude     *graph.Graph
	noSelfLoops bool
	distinct    bool
	corrupt     Corrupt
	power       float64
	powerSet    bool
	tries       int
	err         error
}

// Exclude makes the sampler reject every negative that is an edge of ex
// (exact exclusion: a binary search in ex's sorted neighbour rows, built
// once). ex is usually the sampler's own graph, or the full graph when the
// sampler's graph holds only the training edges. It must have the sampler
// graph's numbers of source and destination nodes. Exclude(nil) turns
// exclusion off, the default.
func Exclude(ex *graph.Graph) Option { return func(c *config) { c.exclude = ex } }

// ExcludeSelfLoops makes the sampler reject negatives (u, u): a corrupted
// endpoint never equals the endpoint kept.
func ExcludeSelfLoops() Option { return func(c *config) { c.noSelfLoops = true } }

// Distinct makes the k negatives of one positive distinct pairs (sampling
// without replacement). Without it negatives are drawn independently, with
// replacement, as DGL and PyG draw them. With it, a positive that has fewer
// than k valid negatives is an error.
func Distinct() Option { return func(c *config) { c.distinct = true } }

// WithCorrupt sets which endpoint negatives replace (default CorruptDst).
func WithCorrupt(mode Corrupt) Option {
	return func(c *config) {
		if mode < CorruptDst || mode > CorruptEither {
			c.err = fmt.Errorf("linkpred: unknown corruption mode %v", mode)
		}
		c.corrupt = mode
	}
}

// Power sets the exponent of DegreeWeighted's degree weighting (default
// 0.75, word2vec's and PinSAGE's); it must be finite and non-negative, and
// applies to no other sampler.
func Power(p float64) Option {
	return func(c *config) {
		if !(p >= 0) || math.IsInf(p, 0) {
			c.err = fmt.Errorf("linkpred: degree power %v must be finite and non-negative", p)
		}
		c.power, c.powerSet = p, true
	}
}

// MaxTries sets how many rejected draws a positive may make before the
// sampler enumerates that positive's valid candidates and draws from them
// (default DefaultMaxTries). The fall-back draws from exactly the same
// distribution, so MaxTries trades speed only: it must be at least 1.
func MaxTries(n int) Option {
	return func(c *config) {
		if n < 1 {
			c.err = fmt.Errorf("linkpred: MaxTries(%d): need at least 1", n)
		}
		c.tries = n
	}
}

// newConfig applies opts over the defaults.
func newConfig(opts []Option) (config, error) {
	c := config{power: 0.75, tries: DefaultMaxTries}
	for _, o := range opts {
		o(&c)
		if c.err != nil {
			return c, c.err
		}
	}
	return c, nil
}
