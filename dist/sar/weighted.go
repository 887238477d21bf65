package sar

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// EdgeIDs returns the global IDs of the edges coming into this worker's
// nodes, in the order of the rows of an edge operand (WeightedSum's
// weights): the shard from rank 0 first, then rank 1's and so on, each in
// global edge order; with WithSelfLoops the loops come last in this rank's
// own shard, the loop on global node u numbered E + u as
// graph.AddSelfLoops numbers it. It is nil when the partition carried no
// edge IDs. A worker gathers its rows of a whole-graph edge tensor with it.
func (g *Graph) EdgeIDs() []int64 {
	ids := make([]int64, 0, g.NumEdges())
	for _, s := range g.shards {
		if s.eid == nil && s.g.NumEdges() > 0 {
			return nil
		}
		ids = append(ids, s.eid...)
	}
	return ids
}

// edgeOffsets returns where each shard's edges start among the worker's
// edges (EdgeIDs order), and their total.
func (g *Graph) edgeOffsets() []int {
	off := make([]int, g.size+1)
	for j, s := range g.shards {
		off[j+1] = off[j] + s.g.NumEdges()
	}
	return off
}

// WeightedSum is NormalizedSum with a weight per edge multiplying each
// message: for every local node v, max(indeg(v), 1)^dstPower times the sum
// over its in-edges e = u -> v of ew[e] max(outdeg(u), 1)^srcPower x[u]
// (ops.UMulESum between the two degree scalings on the whole graph). ew
// holds one weight per local edge, a vector or an (E, 1) matrix, in
// EdgeIDs order.
//
// The weights are taken as constants, as SAR does: the backward pushes the
// gradients of the remote rows straight to their owners without fetching x
// again, and ew gets no gradient (gorgonia.Grad with respect to it fails).
func (g *Graph) WeightedSum(x, ew *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error) {
	row, err := g.sumRows("WeightedSum", x, srcPower, dstPower)
	if err != nil {
		return nil, err
	}
	if ew == nil {
		return nil, fmt.Errorf("sar: WeightedSum: nil edge weights")
	}
	e := g.NumEdges()
	if s := ew.Shape(); !(s.Dims() == 1 && s[0] == e || s.Dims() == 2 && s[0] == e && s[1] == 1) {
		return nil, fmt.Errorf("sar: WeightedSum: edge weights %q have shape %v, want (%d) or (%d, 1) for the %d edges into rank %d", ew.Name(), ew.Shape(), e, e, e, g.rank)
	}
	if ew.Dtype() != x.Dtype() {
		return nil, fmt.Errorf("sar: WeightedSum: edge weights %q have dtype %v, features %v", ew.Name(), ew.Dtype(), x.Dtype())
	}
	plan, err := bcast.New(row, []int{1}, false)
	if err != nil {
		return nil, fmt.Errorf("sar: WeightedSum: %w", err)
	}
	op := &weightedOp{sumOp: sumOp{g: g, src: srcPower, dst: dstPower, row: row, tag: g.nextTags()},
		ewShape: ew.Shape().Clone(), plan: plan}
	return apply(op, x, ew)
}

// weightedOp is WeightedSum, taking (x, ew).
type weightedOp struct {
	sumOp
	ewShape tensor.Shape
	plan    bcast.Plan
}

func (op *weightedOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape(), op.ewShape}, op.shape()
}

func (op *weightedOp) Name() string {
	return fmt.Sprintf("sar_weighted_sum(out^%g,in^%g)", op.src, op.dst)
}

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *weightedOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return weightedDo[float32](op, false, vals[0], vals[1], dst) },
		func() (gorgonia.Value, error) { return weightedDo[float64](op, false, vals[0], vals[1], dst) })
}

// WRT says that only x gets a gradient: the weights are constants.
func (op *weightedOp) WRT(int) []bool { return []bool{true, false} }

// Grad gives the gradient of x, one op of the output gradient and the
// weights.
func (op *weightedOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dx, err := apply(&weightedGradOp{fwd: op}, grad, inputs[1])
	return gorgonia.Nodes{dx, nil}, err
}

// weightedGradOp is the gradient of x, taking (dout, ew).
type weightedGradOp struct{ fwd *weightedOp }

func (op *weightedGradOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.fwd.Shapes() }

func (op *weightedGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *weightedGradOp) Key() string { return op.fwd.Key() }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *weightedGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return weightedDo[float32](op.fwd, true, vals[0], vals[1], dst) },
		func() (gorgonia.Value, error) { return weightedDo[float64](op.fwd, true, vals[0], vals[1], dst) })
}

// weightedDo computes op's sum of v, or with grad the gradient of x from
// v, the output gradient; w holds the edge weights.
func weightedDo[T num.Float](op *weightedOp, grad bool, v, w gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	ew, err := values.Data[T](w)
	if err != nil {
		return nil, err
	}
	if ew == nil { // no edges: still the weighted sum
		ew = []T{}
	}
	return shardedSum(&op.sumOp, op.plan, grad, v, ew, dst)
}

var (
	_ opkit.Partial = (*weightedOp)(nil)
	_ opkit.Spec    = (*weightedGradOp)(nil)
	_ opkit.Into    = (*weightedOp)(nil)
	_ opkit.Into    = (*weightedGradOp)(nil)
)
