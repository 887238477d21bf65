// Package setup loads the data the examples train on and prints their
// progress in one format: an OGB or Planetoid folder when a directory is
// given, a generated planted-partition graph otherwise.
package setup

import (
	"fmt"
	"io"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// Load returns the dataset in dir, in OGB's raw layout (a raw/edge.csv.gz
// file, read with the options OGBOptionsFor gives the folder's name) or in
// the Planetoid format, or a planted-partition graph generated from seed
// when dir is empty. Planetoid features are row-normalised as PyG's
// NormalizeFeatures does; OGB's and generated features are used as they are.
func Load(dir string, seed uint64) (*dataset.Dataset, error) {
	if dir == "" {
		cfg := dataset.DefaultPlantedConfig()
		cfg.Seed = seed
		return dataset.PlantedPartition(cfg)
	}
	return dataset.LoadFolder(dir)
}

// Input is the examples' input features: exactly one of Dense and Sparse
// is set.
type Input struct {
	Dense  *gorgonia.Node
	Sparse *nn.Sparse
}

// Features adds the dataset's features to eg: sparse (multiplied by SpMM,
// never densified) when they are stored sparse and dense is false, a dense
// float32 matrix otherwise.
func Features(eg *gorgonia.ExprGraph, ds *dataset.Dataset, dense bool) (Input, error) {
	f := ds.Features
	if f.IsSparse() && !dense {
		s, err := nn.NewSparse(eg, "features", f.Rows, f.Cols, f.Indptr, f.Indices, f.Values)
		return Input{Sparse: s}, err
	}
	v := tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))
	return Input{Dense: gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("features"), gorgonia.WithValue(v))}, nil
}

// Describe prints one line about the dataset.
func Describe(w io.Writer, ds *dataset.Dataset) {
	fmt.Fprintf(w, "dataset %s: %d nodes, %d edges, %d features, %d classes, train/val/test %d/%d/%d\n",
		ds.Name, ds.Graph.NumSrc(), ds.Graph.NumEdges(), ds.Features.Cols, ds.NumClasses, len(ds.Train), len(ds.Val), len(ds.Test))
}

// PrintEpoch prints one line per epoch.
func PrintEpoch(w io.Writer) func(train.Epoch) {
	return func(e train.Epoch) {
		fmt.Fprintf(w, "epoch %3d  loss %.4f  train %.4f  val %.4f  %6.1f ms\n",
			e.Epoch, e.Loss, e.TrainAcc, e.ValAcc, float64(e.Time.Microseconds())/1000)
	}
}

// PrintResult prints the closing lines: the epoch kept, chosen by sel,
// then exactly "test accuracy: " and the accuracy with four decimals.
func PrintResult(w io.Writer, r *train.Result, sel train.Selection) {
	if sel == train.LowestLoss {
		fmt.Fprintf(w, "lowest validation loss %.4f at epoch %d, validation accuracy %.4f\n", r.History[r.BestEpoch-1].ValLoss, r.BestEpoch, r.BestVal)
	} else {
		fmt.Fprintf(w, "best validation accuracy %.4f at epoch %d\n", r.BestVal, r.BestEpoch)
	}
	fmt.Fprintf(w, "test accuracy: %.4f\n", r.Test)
}
