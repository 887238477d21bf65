package generate

import (
	"fmt"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/parallel"
)

// chunkEdges is the number of edges drawn from one random stream. Streams are
// seeded from (seed, chunk index), so the graph does not depend on how chunks
// are spread over goroutines.
const chunkEdges = 1 << 20

// Uniform returns a graph on n nodes with numEdges edges whose endpoints are
// drawn independently and uniformly (self-loops and parallel edges may occur,
// as in DGL's and PyG's random graphs).
func Uniform(n int, numEdges int64, seed uint64) (*graph.Graph, error) {
	if n < 0 || numEdges < 0 {
		return nil, fmt.Errorf("generate: negative size (nodes %d, edges %d)", n, numEdges)
	}
	if n == 0 && numEdges > 0 {
		return nil, fmt.Errorf("generate: %d edges requested on a graph with no nodes", numEdges)
	}
	if n > graph.MaxNodes {
		return nil, fmt.Errorf("generate: %d nodes exceeds %d", n, graph.MaxNodes)
	}
	src := make([]int32, numEdges)
	dst := make([]int32, numEdges)
	chunks := int((numEdges + chunkEdges - 1) / chunkEdges)
	parallel.For(chunks, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			r := rand.New(rand.NewPCG(seed, uint64(c)))
			from := int64(c) * chunkEdges
			to := min(from+chunkEdges, numEdges)
			for e := from; e < to; e++ {
				src[e] = int32(r.IntN(n))
				dst[e] = int32(r.IntN(n))
			}
		}
	})
	return graph.FromCOO(n, n, src, dst)
}
