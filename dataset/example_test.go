package dataset_test

import (
	"fmt"

	"github.com/gnngo/gnn/dataset"
)

func ExamplePlantedPartition() {
	ds, err := dataset.PlantedPartition(dataset.DefaultPlantedConfig())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d nodes, %d edges, %d features, %d classes\n",
		ds.Name, ds.Graph.NumNodes(), ds.Graph.NumEdges(), ds.Features.Cols, ds.NumClasses)
	fmt.Printf("train %d, val %d, test %d\n", len(ds.Train), len(ds.Val), len(ds.Test))

	// A smaller task for quick tests: the split shrinks to fit.
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 300, 16
	small, err := dataset.PlantedPartition(cfg)
	if err != nil {
		panic(err)
	}
	fmt.Printf("train %d, val %d, test %d\n", len(small.Train), len(small.Val), len(small.Test))
	// Output:
	// planted: 2708 nodes, 10562 edges, 128 features, 7 classes
	// train 140, val 500, test 1000
	// train 21, val 91, test 182
}
