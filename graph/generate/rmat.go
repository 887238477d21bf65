package generate

import (
	"fmt"
	"math"
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
// b = 0.19, c = 0.19 and numEdges = 16 << scale.
//
// As in Graph500, node IDs are then relabelled by a random permutation drawn
// from seed, so that high-degree nodes are spread over the ID range instead of
// gathered near 0. Self-loops and parallel edges may occur and are kept.
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
	// Quadrant thresholds on a uniform 32-bit value.
	const one = 1 << 32
	threshold := func(p float64) uint64 { return uint64(math.Min(math.Round(p*one), one)) }
	ta, tab, tabc := threshold(a), threshold(a+b), threshold(a+b+c)

	n := 1 << scale
	perm := permutation(n, newSource(seed, permStream))
	return drawEdges(n, numEdges, seed, func(s *rand.PCG, src, dst []int32) {
		for i := range src {
			var u, v uint32
			var x uint64
			for level := range scale {
				// Two levels per 64-bit draw.
				if level&1 == 0 {
					x = s.Uint64()
				} else {
					x >>= 32
				}
				r := x & (one - 1)
				// Quadrant c or d sets the source bit, b or d the
				// destination bit. Both are computed without branches,
				// which the random quadrant choice would mispredict.
				cd, d := bit(r >= tab), bit(r >= tabc)
				u = u<<1 | cd
				v = v<<1 | (bit(r >= ta) ^ cd | d)
			}
			src[i], dst[i] = perm[u], perm[v]
		}
	})
}

// bit returns 1 for true and 0 for false.
func bit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// permutation returns a uniformly random permutation of [0, n), n <= 2^31,
// by the Fisher-Yates shuffle.
func permutation(n int, s *rand.PCG) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	for i := n - 1; i > 0; i-- {
		j := uniformBelow(s, uint32(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}
