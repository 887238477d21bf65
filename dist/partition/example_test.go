package partition_test

import (
	"fmt"

	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph"
)

// A 4-cycle split between two ranks: each rank holds the edges into its own
// nodes, one shard per source rank.
func ExampleSplit() {
	g, _ := graph.FromCOO(4, 4, []int32{0, 1, 2, 3}, []int32{1, 2, 3, 0})
	parts, err := partition.Split(g, []int32{0, 0, 1, 1}, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range parts {
		fmt.Println("rank", p.Rank, "nodes", p.Nodes, "in-degrees", p.InDeg)
		for _, s := range p.Shards {
			fmt.Println("  from rank", s.SrcRank, "src", s.Src, "dst", s.Dst, "edges", s.EID)
		}
	}
	// Output:
	// rank 0 nodes [0 1] in-degrees [1 1]
	//   from rank 0 src [0] dst [1] edges [0]
	//   from rank 1 src [1] dst [0] edges [3]
	// rank 1 nodes [2 3] in-degrees [1 1]
	//   from rank 0 src [1] dst [0] edges [1]
	//   from rank 1 src [0] dst [1] edges [2]
}
