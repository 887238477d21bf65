package sampling_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/sampling"
)

// corruptDst is a NegativeSampler drawing one random destination per
// positive (package linkpred has the real ones).
type corruptDst struct{ n int }

func (c corruptDst) Negatives(src, dst []int32, seed uint64) ([]int32, []int32, error) {
	rng := rand.New(rand.NewPCG(seed, 1))
	negDst := make([]int32, len(dst))
	for i := range negDst {
		negDst[i] = int32(rng.IntN(c.n))
	}
	return append([]int32(nil), src...), negDst, nil
}

func ExampleNewEdgeLoader() {
	// An undirected ring of 1000 nodes with chords, stored with both
	// directions.
	var src, dst []int32
	for v := range int32(1000) {
		for _, d := range []int32{1, 7} {
			w := (v + d) % 1000
			src, dst = append(src, v, w), append(dst, w, v)
		}
	}
	g, err := graph.FromCOO(1000, 1000, src, dst)
	if err != nil {
		panic(err)
	}
	rev, err := sampling.ReverseEdgeIDs(g)
	if err != nil {
		panic(err)
	}
	sampler, err := sampling.NewMultiLayer(g, []int{4, 4}, sampling.Options{})
	if err != nil {
		panic(err)
	}
	train := make([]int64, 1500) // the training edges
	for i := range train {
		train[i] = int64(2 * i)
	}
	loader, err := sampling.NewEdgeLoader(sampler, train, sampling.EdgeLoaderOptions{
		BatchSize: 512, Shuffle: true, Seed: 1,
		Negatives: corruptDst{n: 1000},
		// Neither a training edge nor its reverse may carry a message.
		Exclude: sampling.ExcludeReverse, ReverseEdgeIDs: rev,
	})
	if err != nil {
		panic(err)
	}
	for eb, err := range loader.Epoch(0) {
		if err != nil {
			panic(err)
		}
		// The model computes one row per output node from the features
		// of eb.InputNodes; a decoder scores the pairs of eb.Pos and
		// eb.Neg, whose node i is output row i.
		s, d := eb.Pos.COO()
		u, v := eb.OutputNodes[s[0]], eb.OutputNodes[d[0]]
		fmt.Printf("%d positives, %d negatives over %d output nodes; first pair %d-%d is edge %d: %t\n",
			eb.Pos.NumEdges(), eb.Neg.NumEdges(), len(eb.OutputNodes), u, v, eb.EdgeIDs[0], src[eb.EdgeIDs[0]] == u && dst[eb.EdgeIDs[0]] == v)
	}
	// Output:
	// 512 positives, 512 negatives over 779 output nodes; first pair 738-745 is edge 2954: true
	// 512 positives, 512 negatives over 759 output nodes; first pair 231-238 is edge 926: true
	// 476 positives, 476 negatives over 762 output nodes; first pair 163-170 is edge 654: true
}
