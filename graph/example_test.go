package graph_test

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
)

func ExampleFromCOO() {
	// Edge e goes from src[e] to dst[e]: 0->1, 0->2, 2->1, 1->2.
	g, err := graph.FromCOO(3, 3, []int32{0, 0, 2, 1}, []int32{1, 2, 1, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	csc := g.CSC() // in-edges, grouped by destination
	fmt.Println("indptr: ", csc.Indptr)
	fmt.Println("sources:", csc.Indices)
	fmt.Println("edges:  ", csc.EIDs)
	fmt.Println("in-degrees:", g.InDegrees())

	_, err = graph.FromCOO(3, 3, []int32{0, 1}, []int32{1, 3})
	fmt.Println(err)
	// Output:
	// indptr:  [0 0 2 4]
	// sources: [0 2 0 1]
	// edges:   [0 2 1 3]
	// in-degrees: [0 2 2]
	// graph: edge 1 has dst 3 but the graph has 3 destination nodes
}

func ExampleGraph_Reverse() {
	// A bipartite graph from 2 sources to 3 destinations.
	g, _ := graph.FromCOO(2, 3, []int32{0, 1, 1}, []int32{2, 0, 2})
	r := g.Reverse()
	src, dst := r.COO()
	fmt.Println(r.NumSrc(), r.NumDst(), src, dst)
	fmt.Println("shares views:", r.CSR() == g.CSC())
	fmt.Println("same graph back:", r.Reverse() == g)
	// Output:
	// 3 2 [2 0 2] [0 1 1]
	// shares views: true
	// same graph back: true
}

func ExampleGraph_AddSelfLoops() {
	g, _ := graph.FromCOO(3, 3, []int32{0, 1, 1}, []int32{1, 1, 2})
	// Remove the loop on node 1 first, so every node ends with exactly one.
	noLoops, kept := g.RemoveSelfLoops()
	h, err := noLoops.AddSelfLoops()
	if err != nil {
		fmt.Println(err)
		return
	}
	src, dst := h.COO()
	fmt.Println("kept:", kept)
	fmt.Println("src: ", src)
	fmt.Println("dst: ", dst)
	// Output:
	// kept: [0 2]
	// src:  [0 1 0 1 2]
	// dst:  [1 2 0 1 2]
}

func ExampleGraph_ReorderEdges() {
	// Edges 0->1, 0->2, 2->1, 1->2, numbered as drawn.
	g, _ := graph.FromCOO(3, 3, []int32{0, 0, 2, 1}, []int32{1, 2, 1, 2})
	r, perm, err := g.ReorderEdges(graph.ByDst)
	if err != nil {
		fmt.Println(err)
		return
	}
	src, dst := r.COO()
	fmt.Println("src: ", src)
	fmt.Println("dst: ", dst)
	fmt.Println("perm:", perm) // new edge i was edge perm[i]
	fmt.Println("CSC edge IDs:", r.CSC().EIDs, r.CSC().Ordered)
	// Output:
	// src:  [0 2 0 1]
	// dst:  [1 1 2 2]
	// perm: [0 2 1 3]
	// CSC edge IDs: [0 1 2 3] true
}

func ExampleBatch() {
	// A triangle and a path of two nodes, batched as dgl.batch does.
	tri, _ := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{1, 2, 0})
	path, _ := graph.FromCOO(2, 2, []int32{0}, []int32{1})
	b, err := graph.Batch([]*graph.Graph{tri, path})
	if err != nil {
		fmt.Println(err)
		return
	}
	src, dst := b.COO()
	fmt.Println(b.NumGraphs(), "graphs:", src, dst)
	fmt.Println("nodes per graph:", b.BatchNumNodes(), "edges per graph:", b.BatchNumEdges())
	fmt.Println("node offsets:", b.NodeOffsets())
	for i, g := range b.Unbatch() {
		s, d := g.COO()
		fmt.Println("graph", i, s, d)
	}
	// Output:
	// 2 graphs: [0 1 2 3] [1 2 0 4]
	// nodes per graph: [3 2] edges per graph: [3 1]
	// node offsets: [0 3 5]
	// graph 0 [0 1 2] [1 2 0]
	// graph 1 [0] [1]
}
