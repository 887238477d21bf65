package mp

import (
	"fmt"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// assemble builds a tensor of n rows from parts: row i of parts[j] becomes
// row at[j].rows[i] of the result. Rows that no part claims are base's rows
// when base is not nil, and fill otherwise. No row may be claimed twice, and
// every part has the feature shape and dtype of the others and of base. The
// gradient of part j gathers its rows back; base's gradient is the output
// gradient with the claimed rows zeroed.
func assemble(n int, base *gorgonia.Node, parts []*gorgonia.Node, at []*index, fill float64) (*gorgonia.Node, error) {
	if len(parts) != len(at) {
		return nil, fmt.Errorf("mp: assemble: %d parts but %d indices", len(parts), len(at))
	}
	var ref *gorgonia.Node
	if base != nil {
		ref = base
	} else if len(parts) > 0 {
		ref = parts[0]
	} else {
		return nil, fmt.Errorf("mp: assemble: nothing to assemble")
	}
	op := &assembleOp{n: n, feat: feature(ref), parts: at, base: base != nil, fill: fill}
	in := make(gorgonia.Nodes, 0, len(parts)+1)
	if base != nil {
		in = append(in, base)
		var claimed []int64
		for _, ix := range at {
			claimed = append(claimed, ix.rows...)
		}
		op.claimed = newIndex(claimed, true)
	}
	for _, p := range parts {
		if p.Dtype() != ref.Dtype() {
			return nil, fmt.Errorf("mp: assemble: dtypes %v and %v differ", p.Dtype(), ref.Dtype())
		}
	}
	return apply(op, append(in, parts...)...)
}

// assembleOp writes the rows of several parts into one tensor; see assemble.
type assembleOp struct {
	n       int
	feat    []int
	parts   []*index
	base    bool
	claimed *index // the rows of all parts, for base's gradient
	fill    float64
}

func (op *assembleOp) shapes() []tensor.Shape {
	s := make([]tensor.Shape, 0, len(op.parts)+1)
	if op.base {
		s = append(s, shapeOf([]int{op.n}, op.feat))
	}
	for _, ix := range op.parts {
		s = append(s, shapeOf([]int{len(ix.rows)}, op.feat))
	}
	return s
}

func (op *assembleOp) out() tensor.Shape { return shapeOf([]int{op.n}, op.feat) }

func (op *assembleOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.shapes(), op.out() }

func (op *assembleOp) Name() string { return fmt.Sprintf("assemble_rows(%d parts)", len(op.parts)) }

func (op *assembleOp) Key() string {
	ids := make([]string, len(op.parts))
	for i, ix := range op.parts {
		ids[i] = fmt.Sprint(ix.id)
	}
	return fmt.Sprintf("n=%d,feat=%v,parts=%s,base=%v,fill=%v", op.n, op.feat, strings.Join(ids, ","), op.base, op.fill)
}

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *assembleOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return assembleDo[float32](op, vals, dst) },
		func() (gorgonia.Value, error) { return assembleDo[float64](op, vals, dst) })
}

func assembleDo[T num.Float](op *assembleOp, vals []gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	t, y := values.AllocInto[T](dst, op.out())
	if op.base {
		b, err := data[T](vals[0])
		if err != nil {
			return nil, err
		}
		copy(y, b)
		vals = vals[1:]
	} else if fill := T(op.fill); fill != 0 {
		for i := range y {
			y[i] = fill
		}
	}
	w := bcast.Prod(op.feat)
	for j, v := range vals {
		x, err := data[T](v)
		if err != nil {
			return nil, err
		}
		rows := op.parts[j].rows
		parallel.For(len(rows), grain(w), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r := int(rows[i])
				copy(y[r*w:(r+1)*w], x[i*w:(i+1)*w])
			}
		})
	}
	return t, nil
}

// Grad gives each part its rows of the gradient and the base the rest.
func (op *assembleOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	var out gorgonia.Nodes
	if op.base {
		d, err := fillRows(grad, op.claimed, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	for _, ix := range op.parts {
		d, err := gather(grad, ix, []int{len(ix.rows)}, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// fillRows returns x with the rows idx set to value. Its gradient is the
// output gradient with those rows set to 0.
func fillRows(x *gorgonia.Node, idx *index, value float64) (*gorgonia.Node, error) {
	return apply(&fillOp{idx: idx, shape: x.Shape().Clone(), value: value}, x)
}

// fillOp overwrites some rows of a tensor with a constant.
type fillOp struct {
	idx   *index
	shape tensor.Shape
	value float64
}

func (op *fillOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, op.shape
}

func (op *fillOp) Name() string { return fmt.Sprintf("fill_rows(%v)", op.value) }

func (op *fillOp) Key() string {
	return fmt.Sprintf("idx=%d,shape=%v,value=%v", op.idx.id, op.shape, op.value)
}

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *fillOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return doUnary(op, dst, vals, fillDo[float32], fillDo[float64])
}

func fillDo[T num.Float](op *fillOp, x []T, dst *tensor.Dense) (gorgonia.Value, error) {
	t, y := values.AllocInto[T](dst, op.shape)
	copy(y, x)
	w, v := bcast.Prod(op.shape[1:]), T(op.value)
	for _, r := range op.idx.rows {
		row := y[int(r)*w : (int(r)+1)*w]
		for k := range row {
			row[k] = v
		}
	}
	return t, nil
}

// Grad zeroes the filled rows of the gradient.
func (op *fillOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := fillRows(grad, op.idx, 0)
	return gorgonia.Nodes{d}, err
}

var (
	_ opkit.Forward = (*assembleOp)(nil)
	_ opkit.Forward = (*fillOp)(nil)
	_ opkit.Into    = (*assembleOp)(nil)
	_ opkit.Into    = (*fillOp)(nil)
)
