package mp

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
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
// from x, through which the gradient flows instead. A part's SymDiff
// records its (small) output gradient in the group and returns a scalar
// carrier for the token; the token's SymDiff, which Gorgonia calls after
// those of all its consumers, scatters the recorded gradients into one
// gradient of x's size. The parts' gradients are thus assembled once, and
// the carriers and their sum are scalars.

// rowGroup reads several row sets of one tensor.
type rowGroup struct {
	id    uint64
	x     *gorgonia.Node
	n     int
	feat  []int
	tok   *gorgonia.Node
	parts []*groupPartOp
	grads []*gorgonia.Node // recorded by the parts' SymDiff, by part
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
	grp.grads = append(grp.grads, nil)
	return apply(op, grp.x, grp.tok)
}

// groupTokenOp is the scalar 0 computed from x through which the gradients
// of a group's parts reach x.
type groupTokenOp struct {
	cpuOp
	grp *rowGroup
}

func (op *groupTokenOp) Arity() int { return 1 }

func (op *groupTokenOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(gorgonia.TensorType{Dims: 1 + len(op.grp.feat), Of: a}, a)
}

func (op *groupTokenOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if err := opkit.CheckInputs("mp", op.String(), []tensor.Shape{shapeOf([]int{op.grp.n}, op.grp.feat)}, in); err != nil {
		return nil, err
	}
	return tensor.ScalarShape(), nil
}

func (op *groupTokenOp) String() string                                    { return "row_group_token" }
func (op *groupTokenOp) WriteHash(h hash.Hash)                             { fmt.Fprintf(h, "mp.group{%d}", op.grp.id) }
func (op *groupTokenOp) Hashcode() uint32                                  { return opkit.HashOf(op) }
func (op *groupTokenOp) DiffWRT(int) []bool                                { return []bool{true} }
func (op *groupTokenOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) { return zeroScalar(vals) }

// SymDiff returns the gradient of x: the recorded gradients of the parts,
// scattered into x's shape.
func (op *groupTokenOp) SymDiff(_ gorgonia.Nodes, _, _ *gorgonia.Node) (gorgonia.Nodes, error) {
	grp := op.grp
	sc := &groupScatterOp{grp: grp}
	var in gorgonia.Nodes
	for i, g := range grp.grads {
		if g != nil {
			sc.parts = append(sc.parts, i)
			in = append(in, g)
		}
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("mp: %v: no gradient reached the group's parts", op)
	}
	d, err := apply(sc, in...)
	return gorgonia.Nodes{d}, err
}

// groupPartOp gathers rows of x as a part of a group: its inputs are x (not
// differentiated) and the group's token.
type groupPartOp struct {
	gatherOp
	grp  *rowGroup
	part int
}

func (op *groupPartOp) Arity() int { return 2 }

func (op *groupPartOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(gorgonia.TensorType{Dims: len(op.in()), Of: a}, a, gorgonia.TensorType{Dims: len(op.out()), Of: a})
}

func (op *groupPartOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("mp: %v takes 2 inputs, got %d", op, len(in))
	}
	return op.gatherOp.InferShape(in[0])
}

func (op *groupPartOp) String() string { return fmt.Sprintf("gather_rows%v", op.lead) }

func (op *groupPartOp) WriteHash(h hash.Hash) {
	op.gatherOp.WriteHash(h)
	fmt.Fprintf(h, "/group%d.%d", op.grp.id, op.part)
}

func (op *groupPartOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *groupPartOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != 2 {
		return nil, fmt.Errorf("mp: %v takes 2 inputs, got %d", op, len(vals))
	}
	return op.gatherOp.Do(vals[0])
}

func (op *groupPartOp) DiffWRT(int) []bool { return []bool{false, true} }

// SymDiff records the part's gradient for the group token and returns a
// scalar carrier of it as the token's gradient.
func (op *groupPartOp) SymDiff(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	op.grp.grads[op.part] = grad
	c, err := apply(&groupCarrierOp{shape: grad.Shape().Clone()}, grad)
	return gorgonia.Nodes{nil, c}, err
}

// groupCarrierOp is the scalar 0 that stands for a part's gradient in the
// token's gradient.
type groupCarrierOp struct {
	cpuOp
	shape tensor.Shape
}

func (op *groupCarrierOp) Arity() int { return 1 }

func (op *groupCarrierOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(gorgonia.TensorType{Dims: len(op.shape), Of: a}, a)
}

func (op *groupCarrierOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if err := opkit.CheckInputs("mp", op.String(), []tensor.Shape{op.shape}, in); err != nil {
		return nil, err
	}
	return tensor.ScalarShape(), nil
}

func (op *groupCarrierOp) String() string        { return "row_group_carrier" }
func (op *groupCarrierOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "mp.carrier%v", op.shape) }
func (op *groupCarrierOp) Hashcode() uint32      { return opkit.HashOf(op) }
func (op *groupCarrierOp) DiffWRT(int) []bool    { return []bool{false} }
func (op *groupCarrierOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return zeroScalar(vals)
}

func (op *groupCarrierOp) SymDiff(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, backwardOnly(op.String())
}

// groupScatterOp sums the gradients of a group's parts into x's shape.
type groupScatterOp struct {
	cpuOp
	grp   *rowGroup
	parts []int // the parts whose gradients are the inputs, in order
}

func (op *groupScatterOp) shapes() []tensor.Shape {
	s := make([]tensor.Shape, len(op.parts))
	for i, p := range op.parts {
		s[i] = op.grp.parts[p].out()
	}
	return s
}

func (op *groupScatterOp) out() tensor.Shape { return shapeOf([]int{op.grp.n}, op.grp.feat) }

func (op *groupScatterOp) Arity() int    { return len(op.parts) }
func (op *groupScatterOp) Type() hm.Type { return opkit.FnType(len(op.out()), ranks(op.shapes())...) }

func (op *groupScatterOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if err := opkit.CheckInputs("mp", op.String(), op.shapes(), in); err != nil {
		return nil, err
	}
	return op.out(), nil
}

func (op *groupScatterOp) String() string {
	return fmt.Sprintf("scatter_add_row_group(%d)", len(op.parts))
}

func (op *groupScatterOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "mp.groupScatter{%d,%v}", op.grp.id, op.parts)
}

func (op *groupScatterOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *groupScatterOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return groupScatterDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return groupScatterDo[float64](op, vals) })
}

func groupScatterDo[T num.Float](op *groupScatterOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != op.Arity() {
		return nil, fmt.Errorf("mp: %v takes %d inputs, got %d", op, op.Arity(), len(vals))
	}
	t, y := values.Alloc[T](op.out())
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

func (op *groupScatterOp) DiffWRT(n int) []bool { return make([]bool, n) }

func (op *groupScatterOp) SymDiff(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, backwardOnly(op.String())
}

// zeroScalar returns the scalar 0 in the dtype of the first value.
func zeroScalar(vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return gorgonia.NewF32(0), nil },
		func() (gorgonia.Value, error) { return gorgonia.NewF64(0), nil })
}

var (
	_ gorgonia.SDOp = (*groupTokenOp)(nil)
	_ gorgonia.SDOp = (*groupPartOp)(nil)
	_ gorgonia.SDOp = (*groupCarrierOp)(nil)
	_ gorgonia.SDOp = (*groupScatterOp)(nil)
	_ gorgonia.Op   = (*groupTokenOp)(nil)
	_ gorgonia.Op   = (*groupPartOp)(nil)
	_ gorgonia.Op   = (*groupCarrierOp)(nil)
	_ gorgonia.Op   = (*groupScatterOp)(nil)
)
