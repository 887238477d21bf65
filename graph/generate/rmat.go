package generate

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
)

// maxScale is the largest RMAT scale whose node count fits graph.MaxNodes.
const maxScale = 30

// RMAT returns a directed power-law graph on 2^scale nodes with numEdges
// edges drawn by the recursive matrix model (Chakrabarti, Zhan and Faloutsos,
// SDM 2004). Each edge descends scale levels of the adjacency matrix, choosing
// at each level the top-left, top-right, bottom-left or bottom-right quadrant
// with probability a, b, c and d = 1-a-b-c; the top-left quadrant holds the
// lower source and destination halves. The Graph500 benchmark uses a = 0.57,
// b = 0.19, c = 0.19 and numEdges = 16 << scale. Four levels are drawn at
// once from a table of their 256 joint outcomes, with probabilities rounded
// to multiples of 2^-32.
//
// As in Graph500, node IDs are then scrambled by a bijection drawn from seed,
// so that high-degree nodes are spread over the ID range instead of gathered
// near 0. Self-loops and parallel edges may occur and are kept.
//
// Like Uniform, the graph depends only on the arguments, whatever GOMAXPROCS
// is. RMAT returns an error when scale is outside [0, 30], numEdges is
// negative, or a probability is negative, NaN, or a+b+c exceeds 1.
func RMAT(scale int, numEdges int64, a, b, c float64, seed uint64) (*graph.Graph, error) {
	if scale < 0 || scale > maxScale {
		return nil, fmt.Errorf("generate: R-MAT scale %d outside [0, %d]", scale, maxScale)
	}
	if numEdges < 0 {
		return nil, fmt.Errorf("generate: negative edge count %d", numEdges)
	}
	for _, p := range []float64{a, b, c} {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("generate: R-MAT probabilities (a %v, b %v, c %v) must lie in [0, 1]", a, b, c)
		}
	}
	// Allow for rounding in callers that compute c or d = 1-a-b-c.
	if a+b+c > 1+1e-9 {
		return nil, fmt.Errorf("generate: R-MAT probabilities a+b+c = %v exceed 1", a+b+c)
	}
	sampler := newRMATSampler(scale, [4]float64{a, b, c, max(1-a-b-c, 0)})
	relabel := newScrambler(scale, newSource(seed, setupStream))
	return drawEdges(1<<scale, numEdges, seed, func(s *rand.PCG, src, dst []int32) {
		for i := range src {
			u, v := sampler.sample(s)
			src[i], dst[i] = int32(relabel.apply(u)), int32(relabel.apply(v))
		}
	})
}

// levelsPerDraw is the number of R-MAT levels sampled from one 64-bit
// random value: 4^4 = 256 joint outcomes, an alias table that fits in L1.
const levelsPerDraw = 4

// rmatSampler draws R-MAT edges before scrambling, levelsPerDraw levels at a
// time, instead of one quadrant choice per level.
type rmatSampler struct {
	draws int         // full draws of levelsPerDraw levels
	full  *aliasTable // joint outcome of levelsPerDraw levels
	rest  *aliasTable // joint outcome of the remaining scale%levelsPerDraw levels
}

// newRMATSampler returns the sampler of scale levels with quadrant
// probabilities a, b, c and d.
func newRMATSampler(scale int, quadrant [4]float64) *rmatSampler {
	return &rmatSampler{
		draws: scale / levelsPerDraw,
		full:  newLevelTable(levelsPerDraw, quadrant),
		rest:  newLevelTable(scale%levelsPerDraw, quadrant),
	}
}

// sample returns the source and destination of one edge. Levels are
// independent, so which draw decides which bits does not matter.
func (r *rmatSampler) sample(s *rand.PCG) (u, v uint32) {
	for range r.draws {
		u, v = r.full.next(s, u, v)
	}
	if r.rest.levels > 0 {
		u, v = r.rest.next(s, u, v)
	}
	return u, v
}

// aliasTable samples the joint outcome of up to levelsPerDraw R-MAT levels
// in O(1) by Walker's alias method. Outcome k of a table over l levels packs
// the l source bits in k>>l and the l destination bits in k&(1<<l-1).
type aliasTable struct {
	levels uint
	mask   uint8       // number of outcomes - 1
	keep   [256]uint64 // draw outcome k when a 32-bit coin is below keep[k]...
	alias  [256]uint8  // ...and outcome alias[k] otherwise
}

// newLevelTable returns the alias table of the joint outcome of levels
// R-MAT levels, levels <= levelsPerDraw, with quadrant probabilities a, b, c
// and d.
func newLevelTable(levels int, quadrant [4]float64) *aliasTable {
	size := 1 << (2 * levels)
	p := make([]float64, size)
	for k := range p {
		p[k] = 1
		for l := range levels {
			su, sv := k>>(levels+l)&1, k>>l&1
			p[k] *= quadrant[2*su+sv]
		}
	}
	// Vose's construction on probabilities scaled to mean 1.
	t := &aliasTable{levels: uint(levels), mask: uint8(size - 1)}
	var small, large []int
	for k := range p {
		p[k] *= float64(size)
		if p[k] < 1 {
			small = append(small, k)
		} else {
			large = append(large, k)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l, g := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.keep[l], t.alias[l] = uint64(p[l]*(1<<32)), uint8(g)
		p[g] -= 1 - p[l]
		if p[g] < 1 {
			large, small = large[:len(large)-1], append(small, g)
		}
	}
	// What is left has probability 1 up to rounding.
	for _, k := range append(small, large...) {
		t.keep[k], t.alias[k] = 1<<32, uint8(k)
	}
	return t
}

// next appends the bits of one outcome drawn from s to u and v.
func (t *aliasTable) next(s *rand.PCG, u, v uint32) (uint32, uint32) {
	x := s.Uint64()
	k := uint8(x) & t.mask
	// Load both candidates so that the coin selects without a branch.
	if alt := t.alias[k]; x>>32 >= t.keep[k] {
		k = alt
	}
	return u<<t.levels | uint32(k>>t.levels), v<<t.levels | uint32(k)&(1<<t.levels-1)
}

// scrambler is a seeded bijection on [0, 2^scale), Graph500's vertex
// scrambling: twice, multiply by an odd number (a bijection on the low scale
// bits) and reverse those bits. It needs no memory, unlike a stored
// permutation, whose random accesses would dominate large graphs.
type scrambler struct {
	scale       uint
	add, m1, m2 uint64
}

func newScrambler(scale int, s *rand.PCG) scrambler {
	return scrambler{scale: uint(scale), add: s.Uint64(), m1: s.Uint64() | 1, m2: s.Uint64() | 1}
}

// apply returns the new ID of node v < 2^scale.
func (r scrambler) apply(v uint32) uint32 {
	if r.scale == 0 {
		return 0
	}
	x := (uint64(v) + r.add) * r.m1
	x = bits.Reverse64(x) >> (64 - r.scale)
	x *= r.m2
	return uint32(bits.Reverse64(x) >> (64 - r.scale))
}
