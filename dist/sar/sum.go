package sar

import (
	"fmt"
	"math"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/spmm"
)

// NormalizedSum is ops.NormalizedSum over the whole distributed graph: for
// every local node v, max(indeg(v), 1)^dstPower times the sum over all its
// in-edges u -> v, on any rank, of max(outdeg(u), 1)^srcPower x[u], with
// the global degrees. x holds this worker's rows (NumSrc x ...). Each rank
// scales its own rows by their out-degrees before sending them, so the
// aggregation itself is a copy_u sum, shard by shard.
//
// Its gradient is linear in the output gradient: the backward computes
// each shard's source gradients from the output gradient alone and sends
// them to their owners, without fetching x again (SAR's direct backward).
func (g *Graph) NormalizedSum(x *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error) {
	row, err := g.sumRows("NormalizedSum", x, srcPower, dstPower)
	if err != nil {
		return nil, err
	}
	op := &sumOp{g: g, src: srcPower, dst: dstPower, row: row, tag: g.nextTags()}
	return apply(op, x)
}

// sumRows checks the arguments of the sum named op: finite degree powers
// and x as rows checks them; it returns the shape of a row of x.
func (g *Graph) sumRows(op string, x *gorgonia.Node, srcPower, dstPower float64) ([]int, error) {
	for _, p := range []float64{srcPower, dstPower} {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("sar: %s: power %v is not finite", op, p)
		}
	}
	return g.rows(x, "features")
}

// rows checks that x is a float tensor with one row per local node and
// returns the shape of a row.
func (g *Graph) rows(x *gorgonia.Node, what string) ([]int, error) {
	if x == nil {
		return nil, fmt.Errorf("sar: nil %s", what)
	}
	s := x.Shape()
	if len(s) < 2 || s[0] != g.n {
		return nil, fmt.Errorf("sar: %s %q have shape %v, want (%d, ...) for the %d nodes of rank %d", what, x.Name(), s, g.n, g.n, g.rank)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("sar: %s %q have dtype %v, want float32 or float64", what, x.Name(), dt)
	}
	return append([]int(nil), s[1:]...), nil
}

// apply adds the op of s (an opkit Spec) to the expression graph of its
// inputs.
func apply(s opkit.Spec, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	return opkit.Apply("sar", s, inputs...)
}

// sumOp is NormalizedSum.
type sumOp struct {
	g        *Graph
	src, dst float64
	row      []int
	tag      int
}

func (op *sumOp) shape() tensor.Shape { return append(tensor.Shape{op.g.n}, op.row...) }

func (op *sumOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape()}, op.shape()
}

func (op *sumOp) Name() string {
	return fmt.Sprintf("sar_normalized_sum(out^%g,in^%g)", op.src, op.dst)
}

func (op *sumOp) Key() string { return fmt.Sprintf("g=%d,tag=%d,%v", op.g.id, op.tag, op.row) }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *sumOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return sumDo[float32](op, false, vals[0], dst) },
		func() (gorgonia.Value, error) { return sumDo[float64](op, false, vals[0], dst) })
}

// Grad is one op of the output gradient.
func (op *sumOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&sumGradOp{fwd: op}, grad)
	return gorgonia.Nodes{d}, err
}

// sumGradOp is the backward of fwd, taking the output gradient.
type sumGradOp struct{ fwd *sumOp }

func (op *sumGradOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.fwd.Shapes() }

func (op *sumGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *sumGradOp) Key() string { return op.fwd.Key() }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *sumGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return sumDo[float32](op.fwd, true, vals[0], dst) },
		func() (gorgonia.Value, error) { return sumDo[float64](op.fwd, true, vals[0], dst) })
}

// sumDo computes op's sum of v, or with grad its gradient from v, the
// output gradient.
func sumDo[T num.Float](op *sumOp, grad bool, v gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	return shardedSum[T](op, bcast.Same(op.row), grad, v, nil, dst)
}

// shardedSum computes op's sum of v over the shards, each edge's message
// the source row times its weight in ew (broadcast by plan) when ew is not
// nil, the source row itself otherwise; or with grad the gradient of x
// from v, the output gradient.
func shardedSum[T num.Float](op *sumOp, plan bcast.Plan, grad bool, v gorgonia.Value, ew []T, dst *tensor.Dense) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	g := op.g
	msg, weights := spmm.CopyU, func(int) []T { return nil }
	if ew != nil {
		off := g.edgeOffsets()
		msg, weights = spmm.Mul, func(j int) []T { return ew[off[j]:off[j+1]] }
	}
	t, out := values.AllocInto[T](dst, op.shape())
	w := bcast.Prod(op.row)
	var zero T
	if !grad {
		g.account(1, w, 0, int(unsafe.Sizeof(zero)))
		// out = D_in^dst sum_j A_j diag(ew_j) (D_out^src x)_j
		xs := scaled(x, g.outDeg, op.src, w)
		tmp := make([]T, len(out))
		ps := pass[T]{x: xs, xw: w, tag: op.tag, visit: func(j int, rows []T) ([]T, error) {
			spmm.Forward(tmp, g.shards[j].g, msg, spmm.Sum, rows, weights(j), plan, nil)
			addTo(out, tmp)
			return nil, nil
		}}
		if err := ps.run(g); err != nil {
			return nil, err
		}
		scaleInPlace(out, g.inDeg, op.dst, w)
		return t, nil
	}
	// dx = D_out^src sum over the shards reading x of A_j^T diag(ew_j) (D_in^dst dz)
	g.account(0, 0, w, int(unsafe.Sizeof(zero)))
	dz := scaled(x, g.inDeg, op.dst, w)
	ps := pass[T]{gw: w, dx: out, tag: op.tag + 2, visit: func(j int, _ []T) ([]T, error) {
		sh := g.shards[j]
		grad := make([]T, len(sh.src)*w)
		spmm.Forward(grad, sh.g.Reverse(), msg, spmm.Sum, dz, weights(j), plan, nil)
		return grad, nil
	}}
	if err := ps.run(g); err != nil {
		return nil, err
	}
	scaleInPlace(out, g.outDeg, op.src, w)
	return t, nil
}

// scaled returns x with row r multiplied by factor(deg[r], power), or x
// itself when power is 0.
func scaled[T num.Float](x []T, deg []int32, power float64, w int) []T {
	if power == 0 {
		return x
	}
	y := make([]T, len(x))
	copy(y, x)
	scaleInPlace(y, deg, power, w)
	return y
}

func scaleInPlace[T num.Float](x []T, deg []int32, power float64, w int) {
	if power == 0 {
		return
	}
	for r, d := range deg {
		f := num.DegreeFactor[T](int64(d), power)
		row := x[r*w : (r+1)*w]
		for k := range row {
			row[k] *= f
		}
	}
}

func addTo[T num.Float](dst, src []T) {
	for i, v := range src {
		dst[i] += v
	}
}

var (
	_ opkit.Forward = (*sumOp)(nil)
	_ opkit.Spec    = (*sumGradOp)(nil)
	_ opkit.Into    = (*sumOp)(nil)
	_ opkit.Into    = (*sumGradOp)(nil)
)
