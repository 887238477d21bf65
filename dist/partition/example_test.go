package partition_test

import (
	"fmt"
	"os"

	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
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

// Partition a 16x16 grid into 4 balanced parts with few edges between them
// (four 8x8 quadrants would cut 64).
func ExamplePartition() {
	g := generate.Grid(16, 16)
	owner, err := partition.Partition(g, 4, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	cut, _ := partition.EdgeCut(g, owner)
	sizes, _ := partition.PartSizes(owner, 4)
	fmt.Println("cut", cut, "of", g.NumEdges(), "edges; sizes", sizes)
	// Output:
	// cut 80 of 960 edges; sizes [64 64 64 64]
}

// Write a partitioned graph to disk and read back one rank's part, as each
// worker of a distributed job does.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "parts")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	g := generate.Cycle(6)
	owner, _ := partition.Partition(g, 2, 1)
	parts, _ := partition.Split(g, owner, 2)
	if err := partition.Write(dir, parts, partition.Info{Method: "multilevel", Seed: 1}); err != nil {
		fmt.Println(err)
		return
	}
	p, err := partition.Read(dir, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := partition.ReadManifest(dir)
	fmt.Println("rank", p.Rank, "of", m.Parts, "holds", p.NumNodes(), "nodes and", p.NumEdges(), "in-edges; edge cut", m.EdgeCut)
	// Output:
	// rank 1 of 2 holds 3 nodes and 3 in-edges; edge cut 2
}
