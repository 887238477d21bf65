package partition

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/enum"
)

// Balance says what the parts of a partition hold in equal shares.
type Balance uint8

const (
	// BalanceNodes balances the parts' node counts.
	BalanceNodes Balance = iota
	// BalanceNodesEdges balances the parts' node counts and incoming
	// edges together, which is what a SAR worker's memory follows: its
	// nodes' rows (features, activations and their gradients) and its
	// in-edges' shards. Partition weighs every node NodeWeight plus its
	// in-degree, so a part that takes the graph's hubs takes fewer nodes.
	// The parts' weights are kept within MaxImbalance of their share, which
	// bounds each part's in-edges by MaxImbalance (NodeWeight N + E) /
	// parts but lets nodes and in-edges trade against each other within
	// that weight. METIS balances the two as separate constraints (each
	// within 3%), at a higher edge cut on skewed graphs.
	BalanceNodesEdges
)

// NodeWeight is what a node weighs against one in-edge under
// BalanceNodesEdges: about how many in-edges' worth of memory a node costs
// a SAR worker (its features, activations and their gradients, against
// an edge's entries in the shard graphs). Measured with examples/sar on
// R-MAT graphs with 64 features, 4 ranks (largest worker's peak RSS over
// the one-rank run): at 1M nodes and 50M edges, GCN 0.339x with 24 and
// 0.301x with 40; at 262k nodes and 4M edges, GCN 0.311x and 0.289x, GAT
// (8 heads of 8) 0.360x and 0.321x.
const NodeWeight = 40

func (b Balance) String() string {
	return enum.Name(b, "Balance", "nodes", "nodes+edges")
}

// ParseBalance returns the Balance named s: "nodes" or "edges" (nodes and
// in-edges).
func ParseBalance(s string) (Balance, error) {
	switch s {
	case "nodes":
		return BalanceNodes, nil
	case "edges", "nodes+edges":
		return BalanceNodesEdges, nil
	}
	return 0, fmt.Errorf("partition: unknown balance %q (want nodes or edges)", s)
}

// vertexWeights returns the weight of each node of g under b, nil for
// BalanceNodes (every node weighs 1).
func vertexWeights(g *graph.Graph, b Balance) ([]int32, error) {
	switch b {
	case BalanceNodes:
		return nil, nil
	case BalanceNodesEdges:
	default:
		return nil, fmt.Errorf("partition: unknown balance %d", b)
	}
	n := g.NumNodes()
	w := make([]int32, n)
	_, dst := g.COO()
	for _, v := range dst {
		w[v]++
	}
	var total int64
	for v := range w {
		w[v] += NodeWeight
		total += int64(w[v])
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("partition: %d nodes and %d edges weigh %d in all, more than the partitioner's 32-bit weights hold", n, len(dst), total)
	}
	return w, nil
}

// InEdgeLoads returns the number of edges coming into each part's nodes.
func InEdgeLoads(g *graph.Graph, owner []int32, parts int) ([]int64, error) {
	if g == nil || !g.Homogeneous() {
		return nil, fmt.Errorf("partition: InEdgeLoads needs a homogeneous graph")
	}
	if err := CheckOwner(owner, g.NumNodes(), parts); err != nil {
		return nil, err
	}
	loads := make([]int64, parts)
	_, dst := g.COO()
	for _, v := range dst {
		loads[owner[v]]++
	}
	return loads, nil
}

// MaxOverMean returns the largest of loads over their mean (1 when they
// are equal or all zero).
func MaxOverMean(loads []int64) float64 {
	var m, s int64
	for _, l := range loads {
		m, s = max(m, l), s+l
	}
	if s == 0 {
		return 1
	}
	return float64(m) * float64(len(loads)) / float64(s)
}
