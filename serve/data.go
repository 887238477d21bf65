package serve

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
)

// Data is the graph the server answers about and its node features, one
// row per node.
type Data struct {
	Graph    *graph.Graph
	Features *tensor.Dense // N x F, float32 or float64
}

// LoadDataset reads a dataset as the examples do (dataset.LoadFolder): dir
// in OGB's raw layout or the Planetoid format, Planetoid features
// row-normalised as PyG's NormalizeFeatures (the examples' training input),
// OGB's used as they are.
func LoadDataset(dir string) (*dataset.Dataset, error) { return dataset.LoadFolder(dir) }

// NewData returns the dataset's graph and its features as a dense float32
// table (sparse features are densified; dense ones are used in place).
func NewData(ds *dataset.Dataset) (*Data, error) {
	if ds == nil || ds.Graph == nil || ds.Features == nil {
		return nil, fmt.Errorf("serve: the dataset has no graph or no features")
	}
	if ds.Features.Rows != ds.Graph.NumDst() {
		return nil, fmt.Errorf("serve: %d feature rows for a graph of %d nodes", ds.Features.Rows, ds.Graph.NumDst())
	}
	backing := ds.Features.Dense
	if ds.Features.IsSparse() || backing == nil {
		backing = ds.Features.ToDense()
	}
	return &Data{Graph: ds.Graph, Features: tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(backing))}, nil
}

// check reports what makes d unusable with m, and returns d's features in
// m's dtype.
func (d *Data) check(m *Model) (*tensor.Dense, error) {
	if d == nil || d.Graph == nil || d.Features == nil {
		return nil, fmt.Errorf("serve: no graph or no features")
	}
	g := d.Graph
	if g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("serve: the graph is bipartite (%d sources, %d destinations), want one node set", g.NumSrc(), g.NumDst())
	}
	x := d.Features
	if x.Dims() != 2 || x.Shape()[0] != g.NumDst() {
		return nil, fmt.Errorf("serve: features of shape %v for a graph of %d nodes", x.Shape(), g.NumDst())
	}
	if x.Shape()[1] != m.InFeatures {
		return nil, fmt.Errorf("serve: the features have %d columns but the model takes %d", x.Shape()[1], m.InFeatures)
	}
	if x.Dtype() == m.dtype() {
		return x, nil
	}
	n := x.Shape()[0] * x.Shape()[1]
	switch src := x.Data().(type) {
	case []float32:
		dst := make([]float64, n)
		for i, v := range src {
			dst[i] = float64(v)
		}
		return tensor.New(tensor.WithShape(x.Shape()...), tensor.WithBacking(dst)), nil
	case []float64:
		dst := make([]float32, n)
		for i, v := range src {
			dst[i] = float32(v)
		}
		return tensor.New(tensor.WithShape(x.Shape()...), tensor.WithBacking(dst)), nil
	}
	return nil, fmt.Errorf("serve: features of dtype %v, want float32 or float64", x.Dtype())
}
