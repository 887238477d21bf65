package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
)

func ExampleLoadOGBLink() {
	// A citation graph of 6 papers (the training edges), a validation
	// citation with two corrupted destinations, a test citation likewise:
	// ogbl-citation2's form, written by WriteOGBLink.
	g, err := graph.FromCOO(6, 6, []int32{0, 1, 2, 3, 4}, []int32{1, 2, 3, 4, 5})
	if err != nil {
		panic(err)
	}
	ds := &dataset.LinkDataset{
		Graph: g,
		Train: dataset.LinkSplit{Src: []int32{0, 1, 2, 3, 4}, Dst: []int32{1, 2, 3, 4, 5}},
		Valid: dataset.LinkSplit{Src: []int32{5}, Dst: []int32{0}, NegSrc: []int32{5, 5}, NegDst: []int32{2, 3}, NegPerPositive: 2},
		Test:  dataset.LinkSplit{Src: []int32{4}, Dst: []int32{0}, NegSrc: []int32{4, 4}, NegDst: []int32{1, 2}, NegPerPositive: 2},
	}
	root, err := os.MkdirTemp("", "ogbl")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	dir := filepath.Join(root, "ogbl_citation2")
	if err := dataset.WriteOGBLink(dir, ds, dataset.OGBLinkWriteOptions{Split: "time"}); err != nil {
		panic(err)
	}

	// A dataset downloaded by OGB is loaded the same way once its .pt
	// splits are converted by tools/ogbl_split_to_csv.py.
	opts, known := dataset.OGBLinkOptionsFor(dir)
	got, err := dataset.LoadOGBLink(dir, opts)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s (known: %t): %d nodes, %d message-passing edges\n", got.Name, known, got.Graph.NumNodes(), got.Graph.NumEdges())
	fmt.Printf("train %d, valid %d, test %d positives; %d negatives per test positive: %v\n",
		got.Train.Len(), got.Valid.Len(), got.Test.Len(), got.Test.NegPerPositive, got.Test.NegDst)
	// Output:
	// ogbl-citation2 (known: true): 6 nodes, 5 message-passing edges
	// train 5, valid 1, test 1 positives; 2 negatives per test positive: [1 2]
}
