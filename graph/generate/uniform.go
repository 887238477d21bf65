package generate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
)

// Uniform returns a directed graph on n nodes with numEdges edges whose
// endpoints are drawn independently and uniformly from [0, n). Self-loops and
// parallel edges may occur, as in DGL's rand_graph and PyG's random graphs;
// for sparse graphs they are rare (about numEdges/n self-loops).
//
// Edge e is drawn from random stream e/2^20 of seed, so the graph depends only
// on (n, numEdges, seed), whatever GOMAXPROCS is; with the same n and seed, a
// graph with fewer edges is a prefix of one with more. It returns an error
// when a size is negative, n exceeds graph.MaxNodes, or edges are requested
// on no nodes.
func Uniform(n int, numEdges int64, seed uint64) (*graph.Graph, error) {
	if err := checkNodes(n); err != nil {
		return nil, err
	}
	if numEdges < 0 {
		return nil, fmt.Errorf("generate: negative edge count %d", numEdges)
	}
	if n == 0 && numEdges > 0 {
		return nil, fmt.Errorf("generate: %d edges requested on a graph with no nodes", numEdges)
	}
	nodes := uint32(n)
	reject := rejectBelow(max(nodes, 1))
	return drawEdges(n, numEdges, seed, func(s *rand.PCG, src, dst []int32) {
		for i := range src {
			// Both endpoints come from one 64-bit draw; a pair is redrawn
			// when either half is rejected, which keeps it uniform.
			for {
				x := s.Uint64()
				u, uok := below(uint32(x), nodes, reject)
				v, vok := below(uint32(x>>32), nodes, reject)
				if uok && vok {
					src[i], dst[i] = int32(u), int32(v)
					break
				}
			}
		}
	})
}

// UniformDensity returns Uniform(n, round(density*n*n), seed): a uniform
// random graph in which each of the n*n ordered pairs has, on average,
// density edges. The DGL kernel-fusion ablation uses n = 32768 and densities
// from 0.0008 to 0.0128. It returns an error for a density outside [0, 1] and
// for the cases Uniform rejects.
func UniformDensity(n int, density float64, seed uint64) (*graph.Graph, error) {
	if !(density >= 0 && density <= 1) {
		return nil, fmt.Errorf("generate: density %v outside [0, 1]", density)
	}
	if err := checkNodes(n); err != nil {
		return nil, err
	}
	nf := float64(n)
	return Uniform(n, int64(math.Round(density*nf*nf)), seed)
}

// UniformDegree returns Uniform(n, round(meanDegree*n), seed): a uniform
// random graph whose nodes have meanDegree out-edges (and in-edges) on
// average. It returns an error for a negative, infinite or NaN mean degree, an
// edge count that overflows int64, and the cases Uniform rejects.
func UniformDegree(n int, meanDegree float64, seed uint64) (*graph.Graph, error) {
	if !(meanDegree >= 0) || math.IsInf(meanDegree, 1) {
		return nil, fmt.Errorf("generate: mean degree %v is not a finite non-negative number", meanDegree)
	}
	if err := checkNodes(n); err != nil {
		return nil, err
	}
	e := math.Round(meanDegree * float64(n))
	if e >= math.MaxInt64 {
		return nil, fmt.Errorf("generate: %v nodes of mean degree %v overflow the edge count", n, meanDegree)
	}
	return Uniform(n, int64(e), seed)
}
