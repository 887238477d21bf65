package mp

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops"
)

// Package ops has no product reducer, so the builtin prod runs on this
// package's own fused op. Like ops.SpMM it computes every message on the fly
// from the source and edge operands, so the forward pass stores nothing per
// edge; the products are exact, zeros included (no exp-of-log-sum). The
// backward pass forms the gradient of each message, prod of the other
// messages times the output gradient, from prefix and suffix products, which
// is exact when some messages are 0; that gradient is one row per edge.

// prodKind is the message a product reduces.
type prodKind uint8

const (
	prodCopyU prodKind = iota // the source operand
	prodCopyE                 // the edge operand
	prodAdd                   // source + edge
	prodMul                   // source * edge
)

var prodNames = [...]string{"copy_u", "copy_e", "u_add_e", "u_mul_e"}

// reduceProd builds, for every destination node of g, the elementwise
// product over its in-edges of the message kind of u (source rows) and e
// (edge rows); nodes without in-edges get 0. u or e is nil where kind does
// not read it.
func reduceProd(g *graph.Graph, kind prodKind, u, e *gorgonia.Node) (*gorgonia.Node, error) {
	op := &prodOp{g: g, kind: kind}
	var in gorgonia.Nodes
	switch kind {
	case prodCopyU:
		op.lhs = feature(u)
		op.plan = bcast.Same(op.lhs)
		in = gorgonia.Nodes{u}
	case prodCopyE:
		op.rhs = feature(e)
		op.plan = bcast.Same(op.rhs)
		in = gorgonia.Nodes{e}
	default:
		op.lhs, op.rhs = feature(u), feature(e)
		p, err := bcast.New(op.lhs, op.rhs, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", prodNames[kind], err)
		}
		if u.Dtype() != e.Dtype() {
			return nil, fmt.Errorf("%s: operands differ in dtype (%v and %v)", prodNames[kind], u.Dtype(), e.Dtype())
		}
		op.plan = p
		in = gorgonia.Nodes{u, e}
	}
	return apply(op, in...)
}

// prodOp is a fused message + product over the in-edges of every
// destination node.
type prodOp struct {
	g        *graph.Graph
	kind     prodKind
	lhs, rhs []int // feature shapes of u and e (nil when unused)
	plan     bcast.Plan
}

func (op *prodOp) inputShapes() []tensor.Shape {
	var s []tensor.Shape
	if op.kind != prodCopyE {
		s = append(s, shapeOf([]int{op.g.NumSrc()}, op.lhs))
	}
	if op.kind != prodCopyU {
		s = append(s, shapeOf([]int{op.g.NumEdges()}, op.rhs))
	}
	return s
}

func (op *prodOp) out() tensor.Shape { return shapeOf([]int{op.g.NumDst()}, op.plan.Out) }

func (op *prodOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.inputShapes(), op.out() }

func (op *prodOp) Name() string { return prodNames[op.kind] + "_prod" }

func (op *prodOp) Key() string { return fmt.Sprintf("g=%d,u=%v,e=%v", op.g.ID(), op.lhs, op.rhs) }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *prodOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return prodDo[float32](op, vals, dst) },
		func() (gorgonia.Value, error) { return prodDo[float64](op, vals, dst) })
}

// messages computes message rows of a prodOp from its input values.
type messages[T num.Float] struct {
	kind prodKind
	u, e []T
	p    bcast.Plan
}

func newMessages[T num.Float](op *prodOp, vals []gorgonia.Value) (*messages[T], error) {
	m := &messages[T]{kind: op.kind, p: op.plan}
	x, err := data[T](vals[0])
	if err != nil {
		return nil, err
	}
	switch op.kind {
	case prodCopyU:
		m.u = x
	case prodCopyE:
		m.e = x
	default:
		m.u = x
		if m.e, err = data[T](vals[1]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// row writes the message of edge eid, from source node src, to dst.
func (m *messages[T]) row(dst []T, src int32, eid int64) {
	p := &m.p
	switch m.kind {
	case prodCopyU:
		copy(dst, m.u[int(src)*p.OutLen:])
		return
	case prodCopyE:
		copy(dst, m.e[int(eid)*p.OutLen:])
		return
	}
	a := m.u[int(src)*p.LhsLen : (int(src)+1)*p.LhsLen]
	b := m.e[int(eid)*p.RhsLen : (int(eid)+1)*p.RhsLen]
	switch {
	case p.Trivial && m.kind == prodAdd:
		for k := range dst {
			dst[k] = a[k] + b[k]
		}
	case p.Trivial:
		for k := range dst {
			dst[k] = a[k] * b[k]
		}
	case m.kind == prodAdd:
		for k := range dst {
			dst[k] = a[p.LhsOff[k]] + b[p.RhsOff[k]]
		}
	default:
		for k := range dst {
			dst[k] = a[p.LhsOff[k]] * b[p.RhsOff[k]]
		}
	}
}

func prodDo[T num.Float](op *prodOp, vals []gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	m, err := newMessages[T](op, vals)
	if err != nil {
		return nil, err
	}
	t, y := values.AllocInto[T](dst, op.out())
	c, w := op.g.CSC(), op.plan.OutLen
	parallel.For(op.g.NumDst(), grain(w), func(lo, hi int) {
		tmp := make([]T, w)
		for v := lo; v < hi; v++ {
			first, last := c.Row(v)
			if first == last {
				continue
			}
			out := y[v*w : (v+1)*w]
			m.row(out, c.Indices[first], int64(c.EIDs[first]))
			for p := first + 1; p < last; p++ {
				m.row(tmp, c.Indices[p], int64(c.EIDs[p]))
				for k := range out {
					out[k] *= tmp[k]
				}
			}
		}
	})
	return t, nil
}

// Grad builds the gradient of every message (a backward-only op), then
// carries it to the operands with the ops of package ops: a scatter onto
// source nodes (copy_e SpMM on the reversed graph), products with the other
// operand (SDDMM), and sums over broadcast dimensions.
func (op *prodOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dm, err := apply(&prodGradOp{fwd: op}, append(append(gorgonia.Nodes{}, inputs...), grad)...)
	if err != nil {
		return nil, err
	}
	toSrc := func(x *gorgonia.Node) (*gorgonia.Node, error) {
		return ops.SpMM(op.g.Reverse(), ops.CopyRHS, ops.Sum, nil, x)
	}
	switch op.kind {
	case prodCopyU:
		du, err := toSrc(dm)
		return gorgonia.Nodes{du}, err
	case prodCopyE:
		return gorgonia.Nodes{dm}, nil
	}
	u, e := inputs[0], inputs[1]
	du, de := dm, dm
	if op.kind == prodMul {
		if du, err = ops.SDDMM(op.g, ops.Mul, dm, ops.E, e, ops.E); err != nil {
			return nil, err
		}
		if de, err = ops.SDDMM(op.g, ops.Mul, dm, ops.E, u, ops.U); err != nil {
			return nil, err
		}
	}
	if du, err = toSrc(du); err != nil {
		return nil, err
	}
	if du, err = sumTo(du, op.lhs); err != nil {
		return nil, err
	}
	if de, err = sumTo(de, op.rhs); err != nil {
		return nil, err
	}
	return gorgonia.Nodes{du, de}, nil
}

// prodGradOp is the gradient of a prodOp with respect to each message: its
// inputs are the forward's inputs and the output gradient, its output has
// one row per edge.
type prodGradOp struct {
	fwd *prodOp
}

func (op *prodGradOp) out() tensor.Shape {
	return shapeOf([]int{op.fwd.g.NumEdges()}, op.fwd.plan.Out)
}

func (op *prodGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return append(op.fwd.inputShapes(), op.fwd.out()), op.out()
}

func (op *prodGradOp) Name() string { return "d" + op.fwd.Name() + "/dmsg" }

func (op *prodGradOp) Key() string { return op.fwd.Key() }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *prodGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return prodGradDo[float32](op, vals, dst) },
		func() (gorgonia.Value, error) { return prodGradDo[float64](op, vals, dst) })
}

func prodGradDo[T num.Float](op *prodGradOp, vals []gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	m, err := newMessages[T](op.fwd, vals[:len(vals)-1])
	if err != nil {
		return nil, err
	}
	dOut, err := data[T](vals[len(vals)-1])
	if err != nil {
		return nil, err
	}
	g := op.fwd.g
	t, dm := values.AllocInto[T](dst, op.out())
	c, w := g.CSC(), op.fwd.plan.OutLen
	parallel.For(g.NumDst(), grain(w), func(lo, hi int) {
		most := 0
		for v := lo; v < hi; v++ {
			most = max(most, c.Degree(v))
		}
		msg := make([]T, most*w)    // the messages of one node, in edge order
		suffix := make([]T, most*w) // suffix[j] = product of messages j+1...
		prefix := make([]T, w)
		for v := lo; v < hi; v++ {
			first, last := c.Row(v)
			d := int(last - first)
			if d == 0 {
				continue
			}
			for j := range d {
				m.row(msg[j*w:(j+1)*w], c.Indices[first+int64(j)], int64(c.EIDs[first+int64(j)]))
			}
			s := suffix[(d-1)*w : d*w]
			for k := range s {
				s[k] = 1
			}
			for j := d - 2; j >= 0; j-- {
				s, next, mj := suffix[j*w:(j+1)*w], suffix[(j+1)*w:(j+2)*w], msg[(j+1)*w:(j+2)*w]
				for k := range s {
					s[k] = next[k] * mj[k]
				}
			}
			for k := range prefix {
				prefix[k] = 1
			}
			gv := dOut[v*w : (v+1)*w]
			for j := range d {
				e := c.EIDs[first+int64(j)]
				out, s, mj := dm[int(e)*w:(int(e)+1)*w], suffix[j*w:(j+1)*w], msg[j*w:(j+1)*w]
				for k := range out {
					out[k] = gv[k] * prefix[k] * s[k]
					prefix[k] *= mj[k]
				}
			}
		}
	})
	return t, nil
}

var (
	_ opkit.Forward = (*prodOp)(nil)
	_ opkit.Spec    = (*prodGradOp)(nil)
	_ opkit.Into    = (*prodOp)(nil)
	_ opkit.Into    = (*prodGradOp)(nil)
)

// sumTo sums the rows of x over the feature dimensions that were broadcast
// from shape, giving one row of shape per row of x.
func sumTo(x *gorgonia.Node, shape []int) (*gorgonia.Node, error) {
	s := x.Shape()
	from := []int(s[1:])
	if slices.Equal(from, shape) {
		return x, nil
	}
	to := shapeOf([]int{s[0]}, shape)
	if bcast.Prod(from) == bcast.Prod(shape) {
		return gorgonia.Reshape(x, to)
	}
	pad := len(from) - len(shape)
	var axes []int
	for i, d := range from {
		want := 1
		if i >= pad {
			want = shape[i-pad]
		}
		if want == 1 && d != 1 {
			axes = append(axes, i+1)
		}
	}
	y, err := gorgonia.Sum(x, axes...)
	if err != nil {
		return nil, err
	}
	return gorgonia.Reshape(y, to)
}
