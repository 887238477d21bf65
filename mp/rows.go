package mp

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// index is a list of row positions shared by the ops that read or write
// through it, with a process-unique ID for their hashes. Negative entries
// mean "no row": a gather fills them, a scatter skips them.
type index struct {
	id     uint64
	rows   []int64
	unique bool // no non-negative entry repeats
}

// newIndex wraps rows; unique states that no non-negative entry repeats,
// which lets a scatter run in parallel.
func newIndex(rows []int64, unique bool) *index {
	return &index{id: newIndexID(), rows: rows, unique: unique}
}

// gather returns the rows idx of x, shaped (lead..., feat...) where feat is
// x's feature shape and bcast.Prod(lead) is the number of entries: row i of the
// result, in row-major order over lead, is x's row idx.rows[i], or fill
// where that entry is negative. Its gradient is a scatter-add through the
// same index.
func gather(x *gorgonia.Node, idx *index, lead []int, fill float64) (*gorgonia.Node, error) {
	if bcast.Prod(lead) != len(idx.rows) {
		return nil, fmt.Errorf("mp: gather of %d rows into leading shape %v", len(idx.rows), lead)
	}
	op := &gatherOp{idx: idx, n: x.Shape()[0], lead: append([]int{}, lead...), feat: feature(x), fill: fill}
	return apply(op, x)
}

// gatherOp reads rows of a dense tensor through an index.
type gatherOp struct {
	idx  *index
	n    int   // rows of the input
	lead []int // leading dimensions of the output
	feat []int
	fill float64
}

func (op *gatherOp) in() tensor.Shape  { return shapeOf([]int{op.n}, op.feat) }
func (op *gatherOp) out() tensor.Shape { return shapeOf(op.lead, op.feat) }

func (op *gatherOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.in()}, op.out()
}

func (op *gatherOp) Name() string { return fmt.Sprintf("gather_rows%v", op.lead) }

func (op *gatherOp) Key() string {
	return fmt.Sprintf("idx=%d,n=%d,lead=%v,feat=%v,fill=%v", op.idx.id, op.n, op.lead, op.feat, op.fill)
}

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *gatherOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return doUnary(op, dst, vals, gatherDo[float32], gatherDo[float64])
}

func gatherDo[T num.Float](op *gatherOp, x []T, dst *tensor.Dense) (gorgonia.Value, error) {
	t, y := values.AllocInto[T](dst, op.out())
	w, fill := bcast.Prod(op.feat), T(op.fill)
	rows := op.idx.rows
	parallel.For(len(rows), grain(w), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst := y[i*w : (i+1)*w]
			if j := rows[i]; j >= 0 {
				copy(dst, x[int(j)*w:(int(j)+1)*w])
			} else if fill != 0 {
				for k := range dst {
					dst[k] = fill
				}
			}
		}
	})
	return t, nil
}

// Grad scatters the gradient back through the index.
func (op *gatherOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&scatterOp{idx: op.idx, n: op.n, lead: op.lead, feat: op.feat}, grad)
	return gorgonia.Nodes{d}, err
}

// scatterOp sums rows into a zero tensor of n rows through an index: input
// row i (row-major over lead) is added to output row idx.rows[i], and
// skipped where that entry is negative. It is the adjoint of gatherOp.
type scatterOp struct {
	idx  *index
	n    int
	lead []int
	feat []int
}

func (op *scatterOp) in() tensor.Shape  { return shapeOf(op.lead, op.feat) }
func (op *scatterOp) out() tensor.Shape { return shapeOf([]int{op.n}, op.feat) }

func (op *scatterOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.in()}, op.out()
}

func (op *scatterOp) Name() string { return fmt.Sprintf("scatter_add_rows(%d)", op.n) }

func (op *scatterOp) Key() string {
	return fmt.Sprintf("idx=%d,n=%d,lead=%v,feat=%v", op.idx.id, op.n, op.lead, op.feat)
}

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *scatterOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return doUnary(op, dst, vals, scatterDo[float32], scatterDo[float64])
}

func scatterDo[T num.Float](op *scatterOp, x []T, dst *tensor.Dense) (gorgonia.Value, error) {
	t, y := values.AllocInto[T](dst, op.out())
	w := bcast.Prod(op.feat)
	rows := op.idx.rows
	add := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			j := rows[i]
			if j < 0 {
				continue
			}
			dst, src := y[int(j)*w:(int(j)+1)*w], x[i*w:(i+1)*w]
			for k := range dst {
				dst[k] += src[k]
			}
		}
	}
	if op.idx.unique {
		parallel.For(len(rows), grain(w), add)
	} else {
		// Rows may meet: one pass in index order, which also fixes the
		// order of the additions.
		add(0, len(rows))
	}
	return t, nil
}

// Grad gathers the gradient through the index.
func (op *scatterOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&gatherOp{idx: op.idx, n: op.n, lead: op.lead, feat: op.feat}, grad)
	return gorgonia.Nodes{d}, err
}

// grain returns the number of rows of w elements worth a goroutine.
func grain(w int) int { return max(1, 8192/max(w, 1)) }

var (
	_ opkit.Forward = (*gatherOp)(nil)
	_ opkit.Forward = (*scatterOp)(nil)
	_ opkit.Into    = (*gatherOp)(nil)
	_ opkit.Into    = (*scatterOp)(nil)
)
