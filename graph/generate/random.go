package generate

import (
	"fmt"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/internal/parallel"
)

// chunkEdges is the number of edges drawn from one random stream. Chunk c of
// a graph is drawn from stream c of the seed, so the graph does not depend on
// how chunks are spread over goroutines.
const chunkEdges = 1 << 20

// setupStream is the stream index of draws that are not per-chunk, such as
// RMAT's node scrambling; chunk indices never reach it.
const setupStream = 1 << 63

// newSource returns stream number stream of seed: a PCG generator. Both are
// mixed so that nearby seeds and nearby streams start far apart in the
// generator's cycle.
func newSource(seed, stream uint64) *rand.PCG {
	return rand.NewPCG(mix64(seed), mix64(stream^0x6a09e667f3bcc909))
}

// below maps n and 32 random bits x to [0, n) by Lemire's multiply-shift
// method. ok is false, with probability under n/2^32, when x falls in the
// rejection zone and must be redrawn for the result to be exactly uniform;
// reject must be rejectBelow(n).
func below(x, n, reject uint32) (v uint32, ok bool) {
	m := uint64(x) * uint64(n)
	return uint32(m >> 32), uint32(m) >= reject
}

// rejectBelow returns the rejection threshold of below for n > 0:
// 2^32 mod n.
func rejectBelow(n uint32) uint32 { return -n % n }

// mix64 is the SplitMix64 finaliser, a bijection on uint64.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// drawEdges allocates numEdges edges and fills them chunk by chunk in
// parallel: fill(s, src, dst) must fill the given slices from s alone.
//
// It refuses, before allocating, more than graph.MaxEdges edges and a graph
// whose estimated size (edgeBytes a edge, nodeBytes a node) exceeds the
// machine's memory.
func drawEdges(n int, numEdges int64, seed uint64, fill func(s *rand.PCG, src, dst []int32)) (*graph.Graph, error) {
	if numEdges > graph.MaxEdges {
		return nil, fmt.Errorf("generate: %d edges exceeds %d", numEdges, graph.MaxEdges)
	}
	if err := limits.Bytes(fmt.Sprintf("generate: a graph of %d nodes and %d edges", n, numEdges), float64(n)*nodeBytes+float64(numEdges)*edgeBytes); err != nil {
		return nil, err
	}
	src := make([]int32, numEdges)
	dst := make([]int32, numEdges)
	chunks := int((numEdges + chunkEdges - 1) / chunkEdges)
	parallel.For(chunks, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			from := int64(c) * chunkEdges
			to := min(from+chunkEdges, numEdges)
			fill(newSource(seed, uint64(c)), src[from:to], dst[from:to])
		}
	})
	return graph.FromCOO(n, n, src, dst)
}

// Bytes a generated graph takes at least: the drawn src and dst (8 a
// edge), the graph's sorted copies and index (16 a edge) and its offsets
// (16 a node).
const (
	edgeBytes = 24
	nodeBytes = 16
)

// checkNodes reports a node count that is negative or too large.
func checkNodes(n int) error {
	if n < 0 {
		return fmt.Errorf("generate: negative node count %d", n)
	}
	if n > graph.MaxNodes {
		return fmt.Errorf("generate: %d nodes exceeds %d", n, graph.MaxNodes)
	}
	return nil
}
