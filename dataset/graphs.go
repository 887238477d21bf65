package dataset

import (
	"fmt"
	"slices"

	"github.com/gnngo/gnn/graph"
)

// GraphDataset is a graph-classification dataset: many small homogeneous
// graphs, each with one class. Per-node data (NodeLabels, Features) has one
// row per node of all graphs, graph 0's nodes first and each graph's in
// node order: the row order of graph.Batch(Graphs).
type GraphDataset struct {
	Name   string
	Graphs []*graph.Graph

	// Labels holds the class of every graph, in [0, NumClasses); class c
	// is called ClassNames[c] (for a loaded dataset, the label as the file
	// writes it).
	Labels     []int32
	NumClasses int
	ClassNames []string

	// NodeLabels holds a categorical label of every node in
	// [0, NumNodeLabels), NodeLabelNames[k] naming label k; nil when the
	// dataset has none.
	NodeLabels     []int32
	NumNodeLabels  int
	NodeLabelNames []string

	// Features holds dense node attributes, one row per node; nil when the
	// dataset has none.
	Features *Features

	// Train, Val and Test hold graph indices in increasing order; they are
	// empty until a split is chosen (SplitRandom).
	Train, Val, Test []int32
}

// NumNodes returns the number of nodes of all graphs together.
func (d *GraphDataset) NumNodes() int {
	n := 0
	for _, g := range d.Graphs {
		n += g.NumSrc()
	}
	return n
}

// SplitRandom sets Train, Val and Test: the graphs are shuffled by a
// generator seeded with seed, the first val are the validation set, the
// next test the test set and the rest the training set, each sorted. It
// returns an error, changing nothing, when val or test is negative or they
// leave no training graph.
func (d *GraphDataset) SplitRandom(val, test int, seed uint64) error {
	n := len(d.Graphs)
	name := d.Name
	if name == "" {
		name = "graph dataset"
	}
	if n == 0 {
		return fmt.Errorf("dataset: %s: the dataset is empty (no graphs): nothing to split", name)
	}
	if val < 0 || test < 0 || val+test >= n {
		return fmt.Errorf("dataset: %s: cannot split %d graphs into %d validation, %d test and at least one training graph", name, n, val, test)
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng := newStream(seed, streamSplit)
	rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	d.Val = slices.Sorted(slices.Values(perm[:val]))
	d.Test = slices.Sorted(slices.Values(perm[val : val+test]))
	d.Train = slices.Sorted(slices.Values(perm[val+test:]))
	return nil
}
