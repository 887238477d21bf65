package gat

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/heads"
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
	var in [2][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	x, y := in[0], in[1]
	_, outShape := op.shapes(mode)
	t, out := values.AllocInto[T](dst, outShape)
	switch mode {
	case headFwd: // x = z, y = a
		heads.Dot(out, x, y, op.n, op.h, op.f)
	case headDZ: // x = a, y = ds
		heads.Scale(out, x, y, op.n, op.h, op.f)
	case headDA: // x = z, y = ds
		heads.Sum(out, x, y, op.n, op.h, op.f)
	}
	return t, nil
}

var (
	_ opkit.Forward = (*headDotOp)(nil)
	_ opkit.Spec    = (*headDotGradOp)(nil)
)
