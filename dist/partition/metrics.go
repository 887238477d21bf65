package partition

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
)

// EdgeCut returns the number of edges of g whose ends have different owners.
func EdgeCut(g *graph.Graph, owner []int32) (int64, error) {
	if g == nil || !g.Homogeneous() {
		return 0, fmt.Errorf("partition: EdgeCut needs a homogeneous graph")
	}
	if len(owner) != g.NumNodes() {
		return 0, fmt.Errorf("partition: owner has %d entries for %d nodes", len(owner), g.NumNodes())
	}
	src, dst := g.COO()
	var cut int64
	for e := range src {
		if owner[src[e]] != owner[dst[e]] {
			cut++
		}
	}
	return cut, nil
}

// PartSizes returns the number of nodes each of parts ranks owns.
func PartSizes(owner []int32, parts int) ([]int, error) {
	if err := CheckOwner(owner, len(owner), parts); err != nil {
		return nil, err
	}
	sizes := make([]int, parts)
	for _, o := range owner {
		sizes[o]++
	}
	return sizes, nil
}

// Imbalance returns the largest part's size over the average part size
// (1 is perfect balance).
func Imbalance(owner []int32, parts int) (float64, error) {
	sizes, err := PartSizes(owner, parts)
	if err != nil || len(owner) == 0 {
		return 1, err
	}
	m := 0
	for _, s := range sizes {
		m = max(m, s)
	}
	return float64(m) * float64(parts) / float64(len(owner)), nil
}

// Random assigns n nodes to parts ranks uniformly at random with equal part
// sizes (a shuffled round robin), DGL's part_method="random": the baseline
// edge cut the other partitioners are compared with.
func Random(n, parts int, seed int64) ([]int32, error) {
	if parts < 1 {
		return nil, fmt.Errorf("partition: %d parts; need at least 1", parts)
	}
	if n < 0 {
		return nil, fmt.Errorf("partition: %d nodes", n)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x72616e646f6d))
	owner := make([]int32, n)
	for i, v := range rng.Perm(n) {
		owner[v] = int32(i % parts)
	}
	return owner, nil
}

// ErrMETISNotBuilt is METIS's error in a build without the metis tag.
var ErrMETISNotBuilt = errors.New("partition: METIS is not built in; build with -tags metis (needs the apt package libmetis-dev)")
