package partition

import (
	"fmt"
	"testing"
)

// TestPartitionBalancedEdges checks BalanceNodesEdges on an R-MAT graph,
// whose hubs a node-balanced partition piles onto few parts: every part's
// weight (NodeWeight per node plus its in-edges) stays within MaxImbalance
// of its share, so no part holds more than that share of in-edges, and the
// largest part's in-edges come much closer to the mean than with node
// balance.
func TestPartitionBalancedEdges(t *testing.T) {
	g := rmat(t, 12, 16<<12)
	for _, parts := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("parts=%d", parts), func(t *testing.T) {
			byNodes, err := PartitionBalanced(g, parts, 1, BalanceNodes)
			if err != nil {
				t.Fatal(err)
			}
			both, err := PartitionBalanced(g, parts, 1, BalanceNodesEdges)
			if err != nil {
				t.Fatal(err)
			}
			w, err := vertexWeights(g, BalanceNodesEdges)
			if err != nil {
				t.Fatal(err)
			}
			sums := make([]int64, parts)
			var total int64
			for v, o := range both {
				sums[o] += int64(w[v])
				total += int64(w[v])
			}
			if got := MaxOverMean(sums); got > MaxImbalance+0.01 {
				t.Errorf("largest part weighs %.3fx the mean, want at most %.2f", got, MaxImbalance)
			}
			ln, _ := InEdgeLoads(g, byNodes, parts)
			lb, _ := InEdgeLoads(g, both, parts)
			cn, _ := EdgeCut(g, byNodes)
			cb, _ := EdgeCut(g, both)
			t.Logf("in-edges of the largest part over the mean: %.3f balancing nodes (cut %d), %.3f nodes and edges (cut %d)", MaxOverMean(ln), cn, MaxOverMean(lb), cb)
			// The weight bound bounds the in-edges: no part holds more
			// than MaxImbalance (NodeWeight N + E) / parts of them.
			bound := MaxImbalance * float64(total) / float64(parts)
			for p, l := range lb {
				if float64(l) > bound {
					t.Errorf("part %d holds %d in-edges, over the bound %.0f", p, l, bound)
				}
			}
			if MaxOverMean(lb) >= MaxOverMean(ln) {
				t.Errorf("in-edge imbalance %.3f balancing nodes and edges, %.3f balancing nodes", MaxOverMean(lb), MaxOverMean(ln))
			}
		})
	}
}

func TestParseBalance(t *testing.T) {
	for s, want := range map[string]Balance{"nodes": BalanceNodes, "edges": BalanceNodesEdges, "nodes+edges": BalanceNodesEdges} {
		if b, err := ParseBalance(s); err != nil || b != want {
			t.Errorf("ParseBalance(%q) = %v, %v; want %v", s, b, err, want)
		}
	}
	if _, err := ParseBalance("cut"); err == nil {
		t.Error("ParseBalance(cut): no error")
	}
	if _, err := PartitionBalanced(rmat(t, 6, 100), 2, 1, Balance(9)); err == nil {
		t.Error("PartitionBalanced with an unknown balance: no error")
	}
	if MaxOverMean(nil) != 1 || MaxOverMean([]int64{0, 0}) != 1 || MaxOverMean([]int64{1, 3}) != 1.5 {
		t.Error("MaxOverMean")
	}
}

// TestMETISBalanced checks METIS's two constraints: nodes and in-edges
// each within a few percent.
func TestMETISBalanced(t *testing.T) {
	if !METISBuilt {
		t.Skip("METIS is not built in (build with -tags metis)")
	}
	g := rmat(t, 12, 16<<12)
	owner, err := METISBalanced(g, 4, 1, BalanceNodesEdges)
	if err != nil {
		t.Fatal(err)
	}
	imb, _ := Imbalance(owner, 4)
	loads, _ := InEdgeLoads(g, owner, 4)
	if imb > 1.05 || MaxOverMean(loads) > 1.05 {
		t.Errorf("nodes %.3fx and in-edges %.3fx the mean in the largest part, want at most 1.05", imb, MaxOverMean(loads))
	}
}
