package sar

import (
	"fmt"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/spmm"
)

// Reduce is ops.SpMM(g, ops.CopyLHS, red, x, nil) over the whole
// distributed graph: for every local node v and feature, the reducer red
// over all its in-edges u -> v, on any rank, of x[u]. Sum is
// NormalizedSum(x, 0, 0) and Mean NormalizedSum(x, 0, -1); Max and Min
// visit the shards in ring order, each shard's winners merged into running
// ones, ties going to the smallest global edge ID as in one process (a NaN
// is not ordered: where one competes, the winner may differ from one
// process's). A node without in-edges gets 0.
//
// The backward of Max and Min fetches nothing: the forward keeps, for
// every output element, the shard and the source row that won (8 bytes an
// element), and the backward sends each shard's winners their gradients.
func (g *Graph) Reduce(x *gorgonia.Node, red spmm.Reduce) (*gorgonia.Node, error) {
	switch red {
	case spmm.Sum:
		return g.NormalizedSum(x, 0, 0)
	case spmm.Mean:
		return g.NormalizedSum(x, 0, -1)
	case spmm.Max, spmm.Min:
	default:
		return nil, fmt.Errorf("sar: Reduce: unknown reducer %v", red)
	}
	row, err := g.rows(x, "features")
	if err != nil {
		return nil, err
	}
	return apply(&extremeOp{g: g, max: red == spmm.Max, row: row, tag: g.nextTags()}, x)
}

// extremeOp is Reduce with Max or Min. Its forward keeps the winners for
// the backward.
type extremeOp struct {
	g   *Graph
	max bool
	row []int
	tag int
	// winners of the last forward, one per output element: the shard
	// (-1 for none) and the row of the shard's sources.
	shard, src []int32
}

func (op *extremeOp) shape() tensor.Shape { return append(tensor.Shape{op.g.n}, op.row...) }

func (op *extremeOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape()}, op.shape()
}

func (op *extremeOp) Name() string {
	if op.max {
		return "sar_copy_u_max"
	}
	return "sar_copy_u_min"
}

func (op *extremeOp) Key() string { return fmt.Sprintf("g=%d,tag=%d,%v", op.g.id, op.tag, op.row) }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *extremeOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return extremeDo[float32](op, vals[0], dst) },
		func() (gorgonia.Value, error) { return extremeDo[float64](op, vals[0], dst) })
}

// Grad is one op of the output gradient, reading the winners.
func (op *extremeOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&extremeGradOp{fwd: op}, grad)
	return gorgonia.Nodes{d}, err
}

func extremeDo[T num.Float](op *extremeOp, v gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	g := op.g
	t, out := values.AllocInto[T](dst, op.shape())
	w := bcast.Prod(op.row)
	plan := bcast.Same(op.row)
	red := spmm.Min
	if op.max {
		red = spmm.Max
	}
	g.account(1, w, 0, int(unsafe.Sizeof(out[0])))
	n := len(out)
	if len(op.shard) != n {
		op.shard, op.src = make([]int32, n), make([]int32, n)
	}
	for i := range op.shard {
		op.shard[i] = -1
	}
	best := make([]int64, n) // the winner's global edge ID (its shard's edge index without IDs)
	tmp := make([]T, n)
	arg := make([]int64, n)
	ps := pass[T]{x: x, xw: w, tag: op.tag, visit: func(j int, rows []T) ([]T, error) {
		sh := g.shards[j]
		spmm.Forward(tmp, sh.g, spmm.CopyU, red, rows, nil, plan, arg)
		srcs, _ := sh.g.COO()
		for i, e := range arg {
			if e < 0 {
				continue
			}
			id := e
			if sh.eid != nil {
				id = sh.eid[e]
			}
			c, cur := tmp[i], out[i]
			if op.shard[i] < 0 || (op.max && c > cur) || (!op.max && c < cur) || (c == cur && id < best[i]) {
				out[i], best[i] = c, id
				op.shard[i], op.src[i] = int32(j), srcs[e]
			}
		}
		return nil, nil
	}}
	if err := ps.run(g); err != nil {
		return nil, err
	}
	return t, nil
}

// extremeGradOp is the backward of fwd, taking the output gradient.
type extremeGradOp struct{ fwd *extremeOp }

func (op *extremeGradOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.fwd.Shapes() }

func (op *extremeGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *extremeGradOp) Key() string { return op.fwd.Key() }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *extremeGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return extremeGradDo[float32](op.fwd, vals[0], dst) },
		func() (gorgonia.Value, error) { return extremeGradDo[float64](op.fwd, vals[0], dst) })
}

// extremeGradDo sends every shard's winners the gradients of the output
// elements they won.
func extremeGradDo[T num.Float](op *extremeOp, v gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	dout, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	g := op.g
	t, dx := values.AllocInto[T](dst, op.shape())
	if len(op.shard) != len(dx) {
		return nil, fmt.Errorf("sar: the backward of %s ran before its forward", op.Name())
	}
	w := bcast.Prod(op.row)
	var zero T
	g.account(0, 0, w, int(unsafe.Sizeof(zero)))
	ps := pass[T]{gw: w, dx: dx, tag: op.tag + 2, visit: func(j int, _ []T) ([]T, error) {
		grad := make([]T, len(g.shards[j].src)*w)
		for i, s := range op.shard {
			if s == int32(j) {
				grad[int(op.src[i])*w+i%w] += dout[i]
			}
		}
		return grad, nil
	}}
	if err := ps.run(g); err != nil {
		return nil, err
	}
	return t, nil
}

var (
	_ opkit.Forward = (*extremeOp)(nil)
	_ opkit.Spec    = (*extremeGradOp)(nil)
	_ opkit.Into    = (*extremeOp)(nil)
	_ opkit.Into    = (*extremeGradOp)(nil)
)
