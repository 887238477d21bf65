package sampling_test

import (
	"fmt"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/sampling"
)

func ExampleLoader() {
	g, err := generate.Uniform(10000, 100000, 1)
	if err != nil {
		panic(err)
	}
	// Two layers: 10 neighbours for the first (input) layer, 5 for the
	// second, whose outputs are the seeds.
	sampler, err := sampling.NewMultiLayer(g, []int{10, 5}, sampling.Options{})
	if err != nil {
		panic(err)
	}
	train := make([]int32, 2500)
	for i := range train {
		train[i] = int32(4 * i)
	}
	loader, err := sampling.NewLoader(sampler, train, sampling.LoaderOptions{BatchSize: 1024, Shuffle: true, Seed: 7})
	if err != nil {
		panic(err)
	}
	for mb, err := range loader.Epoch(0) {
		if err != nil {
			panic(err)
		}
		// Features of mb.InputNodes go in; the outputs are those of
		// mb.OutputNodes. The destinations of a block are its first sources.
		b := mb.Blocks[1]
		fmt.Printf("%d outputs, %d inputs; last block %d -> %d nodes, destinations first: %t\n",
			len(mb.OutputNodes), len(mb.InputNodes), b.NumSrc(), b.NumDst(), b.SrcNodes[0] == mb.OutputNodes[0])
	}
	// Output:
	// 1024 outputs, 9847 inputs; last block 4577 -> 1024 nodes, destinations first: true
	// 1024 outputs, 9841 inputs; last block 4553 -> 1024 nodes, destinations first: true
	// 452 outputs, 8836 inputs; last block 2367 -> 452 nodes, destinations first: true
}
