package ops

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// sumTo sums the rows of x over the feature dimensions that were broadcast
// from shape to x's feature shape, giving one row of shape per row of x: the
// gradient of a broadcast. It returns x itself when nothing was broadcast.
func sumTo(x *gorgonia.Node, shape []int) (*gorgonia.Node, error) {
	s := x.Shape()
	from := []int(s[1:])
	if slices.Equal(from, shape) {
		return x, nil
	}
	if bcast.Prod(from) == bcast.Prod(shape) {
		return reshape(x, withRows(s[0], shape))
	}
	p, err := bcast.New(from, shape, false)
	if err != nil || !slices.Equal(p.Out, from) {
		return nil, fmt.Errorf("ops: cannot sum feature shape %v to %v", from, shape)
	}
	return apply(&broadcastOp{rows: s[0], wide: from, narrow: append([]int{}, shape...), off: p.RhsOff, sum: true}, x)
}

// broadcastOp maps rows between a narrow feature shape and a wide one it
// broadcasts to: expanding (narrow -> wide) or, with sum, summing back
// (wide -> narrow). Both are forward ops, each the other's gradient.
type broadcastOp struct {
	rows         int
	wide, narrow []int
	off          []int // for each wide element, the narrow element it reads
	sum          bool
}

func (op *broadcastOp) in() tensor.Shape {
	if op.sum {
		return withRows(op.rows, op.wide)
	}
	return withRows(op.rows, op.narrow)
}

func (op *broadcastOp) out() tensor.Shape {
	if op.sum {
		return withRows(op.rows, op.narrow)
	}
	return withRows(op.rows, op.wide)
}

func (op *broadcastOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.in()}, op.out()
}

func (op *broadcastOp) Name() string {
	if op.sum {
		return fmt.Sprintf("sum_to%v", op.narrow)
	}
	return fmt.Sprintf("expand_to%v", op.wide)
}

func (op *broadcastOp) Key() string {
	return fmt.Sprintf("%v,rows=%d,wide=%v,narrow=%v", op.sum, op.rows, op.wide, op.narrow)
}

// DoInto computes the output into dst (opkit.Into).
func (op *broadcastOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return broadcastDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return broadcastDo[float64](dst, op, vals) })
}

// DeviceDo expands or sums rows on the device, as DoInto: the expansion
// gathers the narrow element of every wide one (op.off, uploaded once per
// pair of shapes); the sum adds, for every narrow element, the wide ones
// that read it, in increasing order as DoInto does (their lists uploaded once).
func (op *broadcastOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.out())
	if err != nil {
		return nil, err
	}
	x := in[0]
	w, n := bcast.Prod(op.wide), bcast.Prod(op.narrow)
	key := fmt.Sprintf("ops.broadcast/wide=%v/narrow=%v", op.wide, op.narrow)
	if !op.sum {
		idx, err := b.Cached(key+"/gather", tensor.Shape{w}, func() any {
			idx := make([]int32, w)
			for k, o := range op.off {
				idx[k] = int32(o)
			}
			return idx
		})
		if err != nil {
			return nil, err
		}
		return y, b.GatherCols(y, x, idx, op.rows, n)
	}
	// The wide elements of each narrow one, in increasing order: a CSR
	// of the inverse of op.off.
	inverse := func() (ptr, idx []int32) {
		ptr, idx = make([]int32, n+1), make([]int32, w)
		for _, o := range op.off {
			ptr[o+1]++
		}
		for j := range n {
			ptr[j+1] += ptr[j]
		}
		next := append([]int32{}, ptr[:n]...)
		for k, o := range op.off {
			idx[next[o]] = int32(k)
			next[o]++
		}
		return ptr, idx
	}
	ptr, err := b.Cached(key+"/ptr", tensor.Shape{n + 1}, func() any { p, _ := inverse(); return p })
	if err != nil {
		return nil, err
	}
	idx, err := b.Cached(key+"/idx", tensor.Shape{w}, func() any { _, i := inverse(); return i })
	if err != nil {
		return nil, err
	}
	return y, b.SumCols(y, x, ptr, idx, op.rows, w)
}

func broadcastDo[T num.Float](dst *tensor.Dense, op *broadcastOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	t, y := values.AllocInto[T](dst, op.out())
	w, n := bcast.Prod(op.wide), bcast.Prod(op.narrow)
	parallel.For(op.rows, 256, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if op.sum {
				dst, src := y[r*n:(r+1)*n], x[r*w:(r+1)*w]
				for k, o := range op.off {
					dst[o] += src[k]
				}
			} else {
				dst, src := y[r*w:(r+1)*w], x[r*n:(r+1)*n]
				for k, o := range op.off {
					dst[k] = src[o]
				}
			}
		}
	})
	return t, nil
}

// Grad is the op in the other direction.
func (op *broadcastOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	back := *op
	back.sum = !op.sum
	d, err := apply(&back, grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ opkit.Forward = (*broadcastOp)(nil)
	_ device.Spec   = (*broadcastOp)(nil)
)
