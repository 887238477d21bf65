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

// A reduce function runs once per bucket, and each call gathers its rows of
// the same tensors (the messages, the destination fields). Gorgonia sums
// the gradient of a node over its consumers, each contribution the size of
// the node, so B plain gathers of the E x F messages would cost B full
// E x F gradients in the backward pass, 60 on a uniform graph of average
// degree 50.
//
// A row group avoids that. Its parts gather rows of x but are not
// differentiable with respect to x; each also reads a scalar token computed
// from x, through which the gradient flows instead. A part's Grad hands its
// (small) output gradient to the group (rowGroup.record)
// and returns a scalar carrier for the token; the token's Grad, which
// gorgonia.Grad calls after those of all the token's consumers (it visits
// nodes in reverse topological order), takes the recorded gradients
// (rowGroup.take) and scatters them into one gradient of x's size. The
// parts' gradients are thus assembled once, and the carriers and their sum
// are scalars.
//
// That hand-over is build-time state kept in an opkit.Handover on the
// group, keyed by the group, the one supported way for a gnn op to pass
// values on other than as its output; the ops hold the group only to reach
// it.

// rowGroup reads several row sets of one tensor.
type rowGroup struct {
	id    uint64
	x     *gorgonia.Node
	n     int
	feat  []int
	tok   *gorgonia.Node
	parts []*groupPartOp
	back  opkit.Handover[uint64, *gorgonia.Node] // the parts' output gradients, by part
}

// record hands the output gradient of part to the token's Grad.
func (grp *rowGroup) record(part int, grad *gorgonia.Node) error {
	if err := grp.back.Put(grp.id, part, grad); err != nil {
		return fmt.Errorf("mp: row group part %d got a second gradient before the group's token was differentiated", part)
	}
	return nil
}

// take returns the parts that received a gradient and their gradients, in
// part order, and clears the record, so that no recorded gradient is used
// twice.
func (grp *rowGroup) take() (parts []int, grads gorgonia.Nodes) {
	return grp.back.TakeAll(grp.id)
}

func newRowGroup(x *gorgonia.Node) (*rowGroup, error) {
	grp := &rowGroup{id: newIndexID(), x: x, n: x.Shape()[0], feat: feature(x)}
	tok, err := apply(&groupTokenOp{grp: grp}, x)
	if err != nil {
		return nil, err
	}
	grp.tok = tok
	return grp, nil
}

// gather returns rows idx of the group's tensor, shaped like the result of
// the function gather, as a part of the group.
func (grp *rowGroup) gather(idx *index, lead []int, fill float64) (*gorgonia.Node, error) {
	if bcast.Prod(lead) != len(idx.rows) {
		return nil, fmt.Errorf("mp: gather of %d rows into leading shape %v", len(idx.rows), lead)
	}
	op := &groupPartOp{
		gatherOp: gatherOp{idx: idx, n: grp.n, lead: append([]int{}, lead...), feat: grp.feat, fill: fill},
		grp:      grp,
		part:     len(grp.parts),
	}
	grp.parts = append(grp.parts, op)
	return apply(op, grp.x, grp.tok)
}

// xShape returns the shape of the group's tensor.
func (grp *rowGroup) xShape() tensor.Shape { return shapeOf([]int{grp.n}, grp.feat) }

// groupTokenOp is the scalar 0 computed from x through which the gradients
// of a group's parts reach x.
type groupTokenOp struct {
	grp *rowGroup
}

func (op *groupTokenOp) Name() string { return "row_group_token" }
func (op *groupTokenOp) Key() string  { return fmt.Sprint(op.grp.id) }

func (op *groupTokenOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.grp.xShape()}, tensor.ScalarShape()
}

func (op *groupTokenOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) { return zeroScalar(vals) }

// Grad returns the gradient of x: the gradients the parts recorded,
// scattered into x's shape.
func (op *groupTokenOp) Grad(_ gorgonia.Nodes, _, _ *gorgonia.Node) (gorgonia.Nodes, error) {
	parts, grads := op.grp.take()
	if len(grads) == 0 {
		return nil, fmt.Errorf("mp: %v: no gradient reached the group's parts", op.Name())
	}
	d, err := apply(&groupScatterOp{grp: op.grp, parts: parts}, grads...)
	return gorgonia.Nodes{d}, err
}

// groupPartOp gathers rows of x as a part of a group: its inputs are x (not
// differentiated) and the group's token.
type groupPartOp struct {
	gatherOp
	grp  *rowGroup
	part int
}

func (op *groupPartOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.in(), tensor.ScalarShape()}, op.out()
}

func (op *groupPartOp) Key() string {
	return fmt.Sprintf("%s/group%d.%d", op.gatherOp.Key(), op.grp.id, op.part)
}

// DoInto is the gather's, of the first input (opkit.Into).
func (op *groupPartOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.gatherOp.DoInto(dst, vals[:1])
}

func (op *groupPartOp) WRT(int) []bool { return []bool{false, true} }

// Grad records the part's gradient for the group's token and returns a
// scalar carrier of it as the token's gradient.
func (op *groupPartOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if err := op.grp.record(op.part, grad); err != nil {
		return nil, err
	}
	c, err := apply(&groupCarrierOp{shape: grad.Shape().Clone()}, grad)
	return gorgonia.Nodes{nil, c}, err
}

// groupCarrierOp is the scalar 0 that stands for a part's gradient in the
// token's gradient.
type groupCarrierOp struct {
	shape tensor.Shape
}

func (op *groupCarrierOp) Name() string { return "row_group_carrier" }
func (op *groupCarrierOp) Key() string  { return fmt.Sprint(op.shape) }

func (op *groupCarrierOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, tensor.ScalarShape()
}

func (op *groupCarrierOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) { return zeroScalar(vals) }

// groupScatterOp sums the gradients of a group's parts into x's shape.
type groupScatterOp struct {
	grp   *rowGroup
	parts []int // the parts whose gradients are the inputs, in order
}

func (op *groupScatterOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := make([]tensor.Shape, len(op.parts))
	for i, p := range op.parts {
		s[i] = op.grp.parts[p].out()
	}
	return s, op.grp.xShape()
}

func (op *groupScatterOp) Name() string {
	return fmt.Sprintf("scatter_add_row_group(%d)", len(op.parts))
}

func (op *groupScatterOp) Key() string { return fmt.Sprintf("%d,%v", op.grp.id, op.parts) }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *groupScatterOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return groupScatterDo[float32](op, vals, dst) },
		func() (gorgonia.Value, error) { return groupScatterDo[float64](op, vals, dst) })
}

func groupScatterDo[T num.Float](op *groupScatterOp, vals []gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	t, y := values.AllocInto[T](dst, op.grp.xShape())
	w := bcast.Prod(op.grp.feat)
	for i, v := range vals {
		x, err := data[T](v)
		if err != nil {
			return nil, err
		}
		idx := op.grp.parts[op.parts[i]].idx
		add := func(lo, hi int) {
			for k := lo; k < hi; k++ {
				j := idx.rows[k]
				if j < 0 {
					continue
				}
				dst, src := y[int(j)*w:(int(j)+1)*w], x[k*w:(k+1)*w]
				for c := range dst {
					dst[c] += src[c]
				}
			}
		}
		if idx.unique {
			parallel.For(len(idx.rows), grain(w), add)
		} else {
			add(0, len(idx.rows))
		}
	}
	return t, nil
}

// zeroScalar returns the scalar 0 in the dtype of the first value.
func zeroScalar(vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gorgonia.NewF32(0), nil },
		func() (gorgonia.Value, error) { return gorgonia.NewF64(0), nil })
}

var (
	_ opkit.Forward = (*groupTokenOp)(nil)
	_ opkit.Partial = (*groupPartOp)(nil)
	_ opkit.Spec    = (*groupCarrierOp)(nil)
	_ opkit.Spec    = (*groupScatterOp)(nil)
	_ opkit.Into    = (*groupPartOp)(nil)
	_ opkit.Into    = (*groupScatterOp)(nil)
)
