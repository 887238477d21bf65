package partition

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
)

// MaxImbalance bounds the parts of Partition: no part holds more than
// MaxImbalance times its share of the nodes (rounded up, plus one node for
// each level of bisection on graphs too small to split exactly).
const MaxImbalance = 1.03

// Partition assigns each node of the homogeneous graph g to one of parts
// ranks, minimising the number of edges between ranks while keeping the
// ranks' node counts balanced (within MaxImbalance). It is multilevel
// recursive bisection: heavy-edge matching coarsens the graph (edge
// directions folded, so cutting u-v costs the number of edges u->v and
// v->u), greedy graph growing splits the coarsest graph, and boundary
// Fiduccia-Mattheyses refinement improves the split at every level on the
// way back; each side is then split again. The result depends only on g,
// parts and seed.
func Partition(g *graph.Graph, parts int, seed int64) ([]int32, error) {
	return PartitionBalanced(g, parts, seed, BalanceNodes)
}

// PartitionBalanced is Partition keeping what b names balanced: with
// BalanceNodesEdges every node weighs the average in-degree plus its own
// in-degree, and the parts' weights are kept within MaxImbalance of each
// other, so no part holds far more in-edges than the others (on an R-MAT
// graph balanced by nodes alone, one part of four held 87% of them).
func PartitionBalanced(g *graph.Graph, parts int, seed int64, b Balance) ([]int32, error) {
	if err := checkPartitionArgs(g, parts); err != nil {
		return nil, err
	}
	vw, err := vertexWeights(g, b)
	if err != nil {
		return nil, err
	}
	owner := make([]int32, g.NumNodes())
	if parts == 1 || len(owner) == 0 {
		return owner, nil
	}
	depth := bits.Len(uint(parts - 1)) // levels of bisection
	eps := math.Pow(MaxImbalance, 1/float64(depth)) - 1
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6e6e7061727431))
	wg := undirected(g)
	if vw != nil {
		wg.vw = vw
	}
	ids := make([]int32, g.NumNodes())
	for i := range ids {
		ids[i] = int32(i)
	}
	split(wg, ids, parts, 0, eps, rng, owner, &scratch{})
	return owner, nil
}

// split assigns the vertices of g (ids[i] is vertex i's node) to the k
// parts base, base+1, ...
func split(g *wgraph, ids []int32, k, base int, eps float64, rng *rand.Rand, owner []int32, buf *scratch) {
	if k == 1 || g.n() == 0 {
		for _, v := range ids {
			owner[v] = int32(base)
		}
		return
	}
	k0 := k / 2
	side := bisect(g, float64(k0)/float64(k), eps, rng, buf)
	// Build both halves before recursing, so that g can be freed.
	var subs [2]*wgraph
	var sids [2][]int32
	for s := range subs {
		var sel []int32
		subs[s], sel = g.induced(side, int8(s))
		sids[s] = make([]int32, len(sel))
		for i, v := range sel {
			sids[s][i] = ids[v]
		}
	}
	g, ids, side = nil, nil, nil
	split(subs[0], sids[0], k0, base, eps, rng, owner, buf)
	subs[0], sids[0] = nil, nil
	split(subs[1], sids[1], k-k0, base+k0, eps, rng, owner, buf)
}

// checkPartitionArgs validates the arguments every partitioner takes.
func checkPartitionArgs(g *graph.Graph, parts int) error {
	if g == nil {
		return fmt.Errorf("partition: partitioning a nil graph")
	}
	if !g.Homogeneous() {
		return fmt.Errorf("partition: partitioning needs a homogeneous graph, got %d source and %d destination nodes", g.NumSrc(), g.NumDst())
	}
	if parts < 1 {
		return fmt.Errorf("partition: %d parts; need at least 1", parts)
	}
	return nil
}
