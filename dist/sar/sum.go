package sar

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
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
	for _, p := range []float64{srcPower, dstPower} {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("sar: NormalizedSum: power %v is not finite", p)
		}
	}
	row, err := g.rows(x, "features")
	if err != nil {
		return nil, err
	}
	op := &sumOp{g: g, src: srcPower, dst: dstPower, row: row, tag: g.nextTags()}
	return apply(op, x)
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

func apply(op gorgonia.Op, inputs ...*gorgonia.Node) (*gorgonia.Node, error) {
	n, err := gorgonia.ApplyOp(op, inputs...)
	if err != nil {
		return nil, fmt.Errorf("sar: %v: %w", op, err)
	}
	return n, nil
}

// sumOp is NormalizedSum; with grad set it is its backward, taking the
// output gradient.
type sumOp struct {
	opkit.CPUOp
	g        *Graph
	src, dst float64
	row      []int
	tag      int
	grad     bool
}

func (op *sumOp) shape() tensor.Shape { return append(tensor.Shape{op.g.n}, op.row...) }

func (op *sumOp) Arity() int { return 1 }

func (op *sumOp) Type() hm.Type { return opkit.FnType(len(op.row)+1, len(op.row)+1) }

func (op *sumOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if err := opkit.CheckInputs("sar", op.String(), []tensor.Shape{op.shape()}, in); err != nil {
		return nil, err
	}
	return op.shape(), nil
}

func (op *sumOp) String() string {
	name := "sar_normalized_sum"
	if op.grad {
		name = "d" + name
	}
	return fmt.Sprintf("%s(out^%g,in^%g)", name, op.src, op.dst)
}

func (op *sumOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "%v{g=%d,tag=%d,%v}", op, op.g.id, op.tag, op.row)
}

func (op *sumOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *sumOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return sumDo[float32](op, vals[0]) },
		func() (gorgonia.Value, error) { return sumDo[float64](op, vals[0]) })
}

func sumDo[T num.Float](op *sumOp, v gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	g := op.g
	t, out := values.Alloc[T](op.shape())
	w := bcast.Prod(op.row)
	p := bcast.Same(op.row)
	if !op.grad {
		// out = D_in^dst sum_j A_j (D_out^src x)_j
		xs := scaled(x, g.outDeg, op.src, w)
		tmp := make([]T, len(out))
		ps := pass[T]{x: xs, xw: w, tag: op.tag, visit: func(j int, rows []T) ([]T, error) {
			spmm.Forward(tmp, g.shards[j].g, spmm.CopyU, spmm.Sum, rows, nil, p, nil)
			addTo(out, tmp)
			return nil, nil
		}}
		if err := ps.run(g); err != nil {
			return nil, err
		}
		scaleInPlace(out, g.inDeg, op.dst, w)
		return t, nil
	}
	// dx = D_out^src sum over the shards reading x of A_j^T (D_in^dst dz)
	dz := scaled(x, g.inDeg, op.dst, w)
	ps := pass[T]{gw: w, dx: out, tag: op.tag + 2, visit: func(j int, _ []T) ([]T, error) {
		sh := g.shards[j]
		grad := make([]T, len(sh.src)*w)
		spmm.Forward(grad, sh.g.Reverse(), spmm.CopyU, spmm.Sum, dz, nil, p, nil)
		return grad, nil
	}}
	if err := ps.run(g); err != nil {
		return nil, err
	}
	scaleInPlace(out, g.outDeg, op.src, w)
	return t, nil
}

func (op *sumOp) DiffWRT(int) []bool { return []bool{!op.grad} }

func (op *sumOp) SymDiff(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("sar: %v is a backward op and is not differentiable", op)
	}
	b := *op
	b.grad = true
	d, err := apply(&b, grad)
	return gorgonia.Nodes{d}, err
}

// factor returns max(deg, 1)^power, as ops' degree normalisation.
func factor[T num.Float](deg int32, power float64) T {
	d := float64(max(deg, 1))
	switch power {
	case -1:
		return T(1 / d)
	case -0.5:
		return T(1 / math.Sqrt(d))
	}
	return T(math.Pow(d, power))
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
		f := factor[T](d, power)
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
	_ gorgonia.Op   = (*sumOp)(nil)
	_ gorgonia.SDOp = (*sumOp)(nil)
)
