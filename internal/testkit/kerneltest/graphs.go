package kerneltest

import "math/rand/v2"

// Skewed returns the edges of a graph of n nodes in which node v < m
// receives 60/(v+1)+1 edges from uniform sources, so node 0 is a hub,
// nodes m..n-1 receive none, and self-loops and parallel edges occur. The
// edges are grouped by destination; Shuffle mixes them.
func Skewed(r *rand.Rand, n, m int) (src, dst []int32) {
	for v := range m {
		for range 60/(v+1) + 1 {
			src, dst = append(src, int32(r.IntN(n))), append(dst, int32(v))
		}
	}
	return src, dst
}

// Shuffle permutes the edges src[i] -> dst[i], so that edge IDs are in
// random order with respect to destinations.
func Shuffle(r *rand.Rand, src, dst []int32) {
	r.Shuffle(len(src), func(i, j int) {
		src[i], src[j] = src[j], src[i]
		dst[i], dst[j] = dst[j], dst[i]
	})
}
