package gat

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// headScores returns (N, H, 1): for every node and head, the dot product of
// its projected features z (N, H, F) with the head's attention vector a
// (1, H, F). One fused op replaces Gorgonia's broadcast product (which
// materialises the repeated a) and sum.
func headScores(z, a *gorgonia.Node, n, h int) (*gorgonia.Node, error) {
	f := z.Shape()[2]
	return opkit.Apply("gat", &headDotOp{n: n, h: h, f: f}, z, a)
}

// headDotOp computes s[n,h] = sum_f z[n,h,f] a[h,f] from (z, a). Its
// gradients are headDotGradOps, linear in each input like it.
type headDotOp struct {
	n, h, f int
}

func (op *headDotOp) Name() string { return "head_dot" }

func (op *headDotOp) Key() string { return fmt.Sprintf("%d,%d,%d", op.n, op.h, op.f) }

func (op *headDotOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.shapes(headFwd) }

func (op *headDotOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) { return op.DoInto(nil, vals) }

// DoInto is Do into dst (opkit.Into).
func (op *headDotOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return headDotDo[float32](dst, op, headFwd, vals) },
		func() (gorgonia.Value, error) { return headDotDo[float64](dst, op, headFwd, vals) })
}

// Grad gives z dz[n,h,f] = ds[n,h] a[h,f] and a da[h,f] = sum_n ds[n,h]
// z[n,h,f].
func (op *headDotOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	z, a := inputs[0], inputs[1]
	dz, err := opkit.Apply("gat", &headDotGradOp{fwd: op, mode: headDZ}, a, grad)
	if err != nil {
		return nil, err
	}
	da, err := opkit.Apply("gat", &headDotGradOp{fwd: op, mode: headDA}, z, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dz, da}, nil
}

// headDotGradOp is a gradient of fwd: dz from (a, ds) (headDZ) or da from
// (z, ds) (headDA).
type headDotGradOp struct {
	fwd  *headDotOp
	mode headMode
}

func (op *headDotGradOp) Name() string {
	return [...]string{"", "dhead_dot/dz", "dhead_dot/da"}[op.mode]
}

func (op *headDotGradOp) Key() string { return op.fwd.Key() }

func (op *headDotGradOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.fwd.shapes(op.mode) }

func (op *headDotGradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	return op.DoInto(nil, vals)
}

// DoInto is Do into dst (opkit.Into).
func (op *headDotGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return headDotDo[float32](dst, op.fwd, op.mode, vals) },
		func() (gorgonia.Value, error) { return headDotDo[float64](dst, op.fwd, op.mode, vals) })
}

type headMode uint8

const (
	headFwd headMode = iota
	headDZ
	headDA
)

// shapes returns the input and output shapes of mode.
func (op *headDotOp) shapes(mode headMode) (in []tensor.Shape, out tensor.Shape) {
	z, a, s := tensor.Shape{op.n, op.h, op.f}, tensor.Shape{1, op.h, op.f}, tensor.Shape{op.n, op.h, 1}
	switch mode {
	case headDZ:
		return []tensor.Shape{a, s}, z
	case headDA:
		return []tensor.Shape{z, s}, a
	}
	return []tensor.Shape{z, a}, s
}

func headDotDo[T num.Float](dst *tensor.Dense, op *headDotOp, mode headMode, vals []gorgonia.Value) (gorgonia.Value, error) {
	x, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	y, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	_, outShape := op.shapes(mode)
	t, out := values.AllocInto[T](dst, outShape)
	h, f := op.h, op.f
	switch mode {
	case headFwd: // x = z, y = a
		parallel.For(op.n, 256, func(lo, hi int) {
			if f == 8 {
				headDot8(out[lo*h:hi*h], x[lo*h*8:hi*h*8], y[:h*8])
				return
			}
			for n := lo; n < hi; n++ {
				for k := range h {
					row, av := x[(n*h+k)*f:(n*h+k+1)*f], y[k*f:(k+1)*f]
					var s T
					for j, v := range row {
						s += v * av[j]
					}
					out[n*h+k] = s
				}
			}
		})
	case headDZ: // x = a, y = ds
		parallel.For(op.n, 256, func(lo, hi int) {
			for n := lo; n < hi; n++ {
				for k := range h {
					d, av := y[n*h+k], x[k*f:(k+1)*f]
					row := out[(n*h+k)*f : (n*h+k+1)*f]
					for j, v := range av {
						row[j] = d * v
					}
				}
			}
		})
	case headDA: // x = z, y = ds; summed over nodes in fixed chunks
		parallel.Sum(out, op.n, 1024, func(acc []T, lo, hi int) {
			for n := lo; n < hi; n++ {
				for k := range h {
					d, row, a := y[n*h+k], x[(n*h+k)*f:(n*h+k+1)*f], acc[k*f:(k+1)*f]
					for j, v := range row {
						a[j] += d * v
					}
				}
			}
		})
	}
	return t, nil
}

// headDot8 sets o[i] to the dot product of row i of z, 8 elements, with row
// i%h of a, h = len(a)/8: the attention scores of heads of 8 features, in
// the order of the general loop.
func headDot8[T num.Float](o, z, a []T) {
	h := len(a) / 8
	z = z[:len(o)*8]
	for i := range o {
		r, av := (*[8]T)(z[i*8:]), (*[8]T)(a[(i%h)*8:])
		s := r[0] * av[0]
		s += r[1] * av[1]
		s += r[2] * av[2]
		s += r[3] * av[3]
		s += r[4] * av[4]
		s += r[5] * av[5]
		s += r[6] * av[6]
		s += r[7] * av[7]
		o[i] = s
	}
}

var (
	_ opkit.Forward = (*headDotOp)(nil)
	_ opkit.Spec    = (*headDotGradOp)(nil)
)
