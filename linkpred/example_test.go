package linkpred_test

import (
	"fmt"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/linkpred"
)

func ExampleSplitEdges() {
	// A 20-node cycle with both directions: 20 undirected pairs.
	g, _ := generate.Cycle(20).ToBidirected()
	s, err := linkpred.SplitEdges(g, linkpred.SplitConfig{Val: 0.1, Test: 0.2, Undirected: true, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// floor(0.1*20) = 2 validation and floor(0.2*20) = 4 test pairs, the
	// other 14 train; message passing holds both directions of each pair.
	fmt.Println("supervision pairs:", len(s.Train.Src), len(s.Val.Src), len(s.Test.Src))
	fmt.Println("message-passing edges:", s.Train.Graph.NumEdges(), s.Val.Graph.NumEdges(), s.Test.Graph.NumEdges())
	fmt.Println("test pairs:", s.Test.Src, s.Test.Dst)
	// Output:
	// supervision pairs: 14 2 4
	// message-passing edges: 28 28 32
	// test pairs: [7 13 16 17] [8 14 17 18]
}

func ExampleNewUniform() {
	ring := generate.Cycle(6) // 0 -> 1 -> ... -> 5 -> 0
	// Two negatives per positive, never an edge of the ring nor a self-loop.
	u, err := linkpred.NewUniform(ring, 2, linkpred.Exclude(ring), linkpred.ExcludeSelfLoops())
	if err != nil {
		fmt.Println(err)
		return
	}
	src, dst := ring.COO()
	negSrc, negDst, err := u.Negatives(src[:3], dst[:3], 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range negSrc {
		fmt.Printf("positive %d -> %d: negative %d -> %d\n", src[i/2], dst[i/2], negSrc[i], negDst[i])
	}
	// Output:
	// positive 0 -> 1: negative 0 -> 4
	// positive 0 -> 1: negative 0 -> 2
	// positive 1 -> 2: negative 1 -> 3
	// positive 1 -> 2: negative 1 -> 0
	// positive 2 -> 3: negative 2 -> 4
	// positive 2 -> 3: negative 2 -> 0
}
