package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
)

// ReadoutNodes pools node features over each graph of a batch (DGL's
// readout_nodes): row i of the result is the reducer red (Sum, Mean, Max
// or Min), elementwise, over the rows of x that belong to graph i. x has one
// row per node of b and any feature shape; the result has one row per
// graph and the same feature shape.
//
// It is a segment reduction over the contiguous node ranges of the graphs,
// with no padding: a copy_u SpMM over b.Readout(), whose in-edge view is the
// node offsets over the identity, so the kernel walks each graph's rows in
// order. A graph with no nodes gets 0 for every reducer and Mean divides by
// the node count, as in DGL. The gradient of Sum copies each graph's
// gradient row to its nodes, Mean scales it by 1/count, and Max and Min
// route it to the node that won each element, the smallest node ID among
// equal values.
func ReadoutNodes(b *graph.Batched, red Reducer, x *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkBatchFeatures(b, x, "ReadoutNodes", "features"); err != nil {
		return nil, err
	}
	return SpMM(b.Readout(), CopyLHS, red, x, nil)
}

// SumNodes is ReadoutNodes with Sum (DGL's sum_nodes, SumPooling).
func SumNodes(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error) {
	return ReadoutNodes(b, Sum, x)
}

// MeanNodes is ReadoutNodes with Mean (DGL's mean_nodes, AvgPooling).
func MeanNodes(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error) {
	return ReadoutNodes(b, Mean, x)
}

// MaxNodes is ReadoutNodes with Max (DGL's max_nodes, MaxPooling).
func MaxNodes(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error) {
	return ReadoutNodes(b, Max, x)
}

// WeightedSumNodes is the sum over each graph's nodes of the rows of x
// times the rows of w (DGL's sum_nodes with a weight). w has one row per
// node and a feature shape that broadcasts against x's, typically (N, 1)
// or (N, H, 1) for per-head weights of (N, H, D) features. The products are
// never stored: it is a u_mul_e SpMM over b.Readout(), whose edge v is node v.
func WeightedSumNodes(b *graph.Batched, x, w *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkBatchFeatures(b, x, "WeightedSumNodes", "features"); err != nil {
		return nil, err
	}
	if err := checkBatchFeatures(b, w, "WeightedSumNodes", "weights"); err != nil {
		return nil, err
	}
	return SpMM(b.Readout(), Mul, Sum, x, w)
}

// SoftmaxNodes computes, for every column of the node scores x, the
// softmax over the nodes of each graph of b (DGL's softmax_nodes): the
// result has x's shape and, in every column, sums to 1 over each graph. It
// is an edge softmax over b.Readout(), numerically stable, with a fused
// backward. It returns an error when the batch has no nodes.
func SoftmaxNodes(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkBatchFeatures(b, x, "SoftmaxNodes", "scores"); err != nil {
		return nil, err
	}
	return EdgeSoftmax(b.Readout(), x, ByDst)
}

// checkBatchFeatures checks that x has one row per node of b.
func checkBatchFeatures(b *graph.Batched, x *gorgonia.Node, fn, what string) error {
	if b == nil {
		return fmt.Errorf("ops: %s on a nil batch", fn)
	}
	if x == nil {
		return fmt.Errorf("ops: %s: %s are nil", fn, what)
	}
	if s := x.Shape(); len(s) == 0 || x.IsScalar() || s[0] != b.NumSrc() {
		return fmt.Errorf("ops: %s: %s %q have shape %v but the batch has %d nodes (want one row per node)", fn, what, x.Name(), s, b.NumSrc())
	}
	return nil
}
