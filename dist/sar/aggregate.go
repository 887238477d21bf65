package sar

import (
	"fmt"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gat"
	"github.com/gnngo/gnn/ops"
)

// Aggregate builds the distributed counterpart of a on the whole graph
// (nn.Sharded): the one place where each aggregation a layer builds with
// nn.On meets this graph's implementation of it, by kind.
//
//   - nn.NormSum: NormalizedSum, or WeightedSum with edge weights; with
//     SrcIn the rows are first scaled by the whole graph's in-degrees.
//   - nn.Reduction: Reduce, or the weighted sum or mean (WeightedSum).
//   - gat.Attention: GATAggregate shard by shard, or in OneShot mode the
//     single-process Attention on Block with the features extended by Halo
//     and the dropout masks drawn by global edge ID.
//
// Any other aggregation is an error naming it.
func (g *Graph) Aggregate(a nn.Aggregation, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	switch a := a.(type) {
	case nn.NormSum:
		x, ew, err := operands(a, in, 1)
		if err != nil {
			return nil, err
		}
		switch {
		case a.SrcIn && ew != nil:
			return nil, fmt.Errorf("sar: NormSum with in-degree source scaling takes no edge weights")
		case a.SrcIn:
			h, err := gorgonia.BroadcastHadamardProd(x, degreeColumn(x, g.InDegrees(), a.Src), nil, []byte{1})
			if err != nil {
				return nil, err
			}
			return g.NormalizedSum(h, 0, a.Dst)
		case ew == nil:
			return g.NormalizedSum(x, a.Src, a.Dst)
		}
		return g.WeightedSum(x, ew, a.Src, a.Dst)
	case nn.Reduction:
		x, ew, err := operands(a, in, 1)
		if err != nil {
			return nil, err
		}
		switch {
		case ew == nil:
			return g.Reduce(x, a.Red)
		case a.Red == ops.Sum:
			return g.WeightedSum(x, ew, 0, 0)
		case a.Red == ops.Mean: // the weighted sum over the in-degree (0 without in-edges)
			return g.WeightedSum(x, ew, 0, -1)
		}
		return nil, fmt.Errorf("nn: the weighted %v aggregation is not supported on a sharded graph", a.Red)
	case gat.Attention:
		if _, _, err := operands(a, in, 3); err != nil {
			return nil, err
		}
		return g.attention(a, in[0], in[1], in[2], in[3])
	}
	return nil, fmt.Errorf("sar: the %T aggregation is not supported on a sharded graph", a)
}

// attention is gat.Attention on the whole graph.
func (g *Graph) attention(a gat.Attention, z, al, ar, ew *gorgonia.Node) (*gorgonia.Node, error) {
	b, err := g.OneShotBlock()
	if err != nil {
		return nil, err
	}
	if b == nil {
		// Scores, attention and aggregation in one op: the scores and their
		// (N, H, F) gradients are no nodes here, and attention is computed
		// and consumed shard by shard, never returned.
		return g.GATAggregate(z, al, ar, ew, a.Slope, a.Drop)
	}
	// One-shot mode: the single-process ops on the worker's block, with the
	// projected rows of its remote sources fetched at once.
	if a.EdgeIDs = g.EdgeIDs(); a.EdgeIDs == nil && a.Drop.P > 0 {
		return nil, fmt.Errorf("sar: attention dropout on a sharded graph needs the partition's global edge IDs")
	}
	if z, err = g.Halo(z); err != nil {
		return nil, err
	}
	return a.Local(b, z, al, ar, ew)
}

// operands checks that the aggregation a got its n node operands and an
// edge operand (nil for none), and returns the first and the edge operand.
func operands(a nn.Aggregation, in []*gorgonia.Node, n int) (x, ew *gorgonia.Node, err error) {
	if len(in) != n+1 && !(n == 1 && len(in) == 1) {
		return nil, nil, fmt.Errorf("sar: %T takes %d inputs and edge weights (or nil), got %d", a, n, len(in))
	}
	for i, v := range in[:n] {
		if v == nil {
			return nil, nil, fmt.Errorf("sar: %T: input %d is nil", a, i)
		}
	}
	if len(in) > n {
		ew = in[n]
	}
	return in[0], ew, nil
}

// degreeColumn is the constant (N, 1) column of max(deg, 1)^power in
// like's dtype.
func degreeColumn(like *gorgonia.Node, deg []int64, power float64) *gorgonia.Node {
	var backing any
	if like.Dtype() == tensor.Float32 {
		v := make([]float32, len(deg))
		for i, d := range deg {
			v[i] = num.DegreeFactor[float32](d, power)
		}
		backing = v
	} else {
		v := make([]float64, len(deg))
		for i, d := range deg {
			v[i] = num.DegreeFactor[float64](d, power)
		}
		backing = v
	}
	t := tensor.New(tensor.WithShape(len(deg), 1), tensor.WithBacking(backing))
	return gorgonia.NodeFromAny(like.Graph(), t, gorgonia.WithName(fmt.Sprintf("sar.degree^%g.%d", power, columns.Add(1))))
}

// columns numbers the degree columns, for unique node names.
var columns atomic.Uint64
var _ nn.Sharded = (*Graph)(nil)
