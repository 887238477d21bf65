package dataset_test

import (
	"fmt"
	"os"

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

func ExampleLoadOGB() {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features = 300, 16
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "ogb")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	// Each undirected pair once, as OGB stores ogbn-products.
	if err := dataset.WriteOGB(dir, ds, dataset.OGBWriteOptions{Split: "random", Undirected: true}); err != nil {
		panic(err)
	}
	got, err := dataset.LoadOGB(dir, dataset.OGBOptions{Name: "planted", AddInverseEdges: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d nodes, %d edges, %d features, %d classes\n",
		got.Name, got.Graph.NumNodes(), got.Graph.NumEdges(), got.Features.Cols, got.NumClasses)

	// The options OGB keeps in its master.csv, for a folder's name.
	opts, ok := dataset.OGBOptionsFor("dataset/ogbn_products")
	fmt.Printf("%+v %t\n", opts, ok)
	// Output:
	// planted: 300 nodes, 1170 edges, 16 features, 7 classes
	// {Name:ogbn-products Split:sales_ranking NumClasses:47 AddInverseEdges:true} true
}

func ExampleMiniGC() {
	ds, err := dataset.MiniGC(dataset.DefaultMiniGCConfig())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d graphs, %d nodes, %d classes\n", ds.Name, len(ds.Graphs), ds.NumNodes(), ds.NumClasses)
	fmt.Printf("train %d, val %d, test %d\n", len(ds.Train), len(ds.Val), len(ds.Test))
	for i := range 3 {
		fmt.Printf("graph %d: %s, %d nodes\n", i, ds.ClassNames[ds.Labels[i]], ds.Graphs[i].NumSrc())
	}
	// Output:
	// minigc: 1000 graphs, 14264 nodes, 8 classes
	// train 600, val 200, test 200
	// graph 0: cycle, 12 nodes
	// graph 1: star, 15 nodes
	// graph 2: wheel, 13 nodes
}
