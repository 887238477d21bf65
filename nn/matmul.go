package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/nn/internal/gemm"
)

// MatMul builds x times w for an (N, K) x and a (K, M) w, as gorgonia.Mul
// does, on gnn's own kernels: rows on several goroutines with results that
// do not depend on GOMAXPROCS, and AVX2 assembly for float32 (a layer's
// projection: many rows times a weight that fits the cache, where gonum's
// general matrix product was 4 to 10 times slower on dense input). Its
// gradients are x's, dY times w transposed, and w's, x transposed times dY,
// summed over fixed chunks of rows in a fixed order.
func MatMul(x, w *gorgonia.Node) (*gorgonia.Node, error) {
	op, err := newMatMulOp("MatMul", x, w)
	if err != nil {
		return nil, err
	}
	return apply(op, x, w)
}

// newMatMulOp checks the arguments of MatMul (or of fn, which calls it
// so) and returns its op.
func newMatMulOp(fn string, x, w *gorgonia.Node) (*matMulOp, error) {
	if x == nil || w == nil {
		return nil, fmt.Errorf("nn: %s of a nil node", fn)
	}
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 2 || len(ws) != 2 {
		return nil, fmt.Errorf("nn: %s needs two matrices, got shapes %v (%q) and %v (%q)", fn, xs, x.Name(), ws, w.Name())
	}
	if xs[1] != ws[0] {
		return nil, fmt.Errorf("nn: %s: %q is %v but %q is %v: inner sizes differ", fn, x.Name(), xs, w.Name(), ws)
	}
	if x.Dtype() != w.Dtype() || (x.Dtype() != tensor.Float32 && x.Dtype() != tensor.Float64) {
		return nil, fmt.Errorf("nn: %s: dtypes %v (%q) and %v (%q); want both float32 or both float64", fn, x.Dtype(), x.Name(), w.Dtype(), w.Name())
	}
	return &matMulOp{n: xs[0], k: xs[1], m: ws[1]}, nil
}

// matMulOp is a product of two matrices, a (n x k) times b (k x m).
type matMulOp struct {
	n, k, m int
}

func (op *matMulOp) Name() string { return fmt.Sprintf("matmul(%dx%dx%d)", op.n, op.k, op.m) }

func (op *matMulOp) Key() string { return "" }

func (op *matMulOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.n, op.k}, {op.k, op.m}}, tensor.Shape{op.n, op.m}
}

// DoInto computes the output into dst (opkit.Into).
func (op *matMulOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return matMulDo[float32](dst, op, product, vals) },
		func() (gorgonia.Value, error) { return matMulDo[float64](dst, op, product, vals) })
}

// DeviceDo runs the product with the backend's dense kernel. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *matMulOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	return matMulDevice(b, op, product, vals)
}

// matMulDevice is the device product of op in mode.
func matMulDevice(b device.Backend, op *matMulOp, mode matMulMode, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	shape, dm := tensor.Shape{op.n, op.m}, device.Product
	switch mode {
	case transB:
		shape, dm = tensor.Shape{op.n, op.k}, device.TransB
	case transA:
		shape, dm = tensor.Shape{op.k, op.m}, device.TransA
	}
	c, err := b.Alloc(in[0].Dtype(), shape)
	if err != nil {
		return nil, err
	}
	return c, b.MatMul(c, in[0], in[1], op.n, op.k, op.m, dm)
}

// Grad gives x dY times w transposed and w x transposed times dY.
func (op *matMulOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dx, err := apply(&matMulGradOp{fwd: op, mode: transB}, grad, inputs[1])
	if err != nil {
		return nil, err
	}
	dw, err := apply(&matMulGradOp{fwd: op, mode: transA}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dw}, nil
}

// matMulMode selects the product matMulDo computes from its inputs a, b.
type matMulMode int

const (
	product matMulMode = iota // a (n x k) times b (k x m)
	transB                    // a (n x m) times b (k x m) transposed: n x k
	transA                    // a (n x k) transposed times b (n x m): k x m
)

// matMulGradOp is a gradient of fwd: a product of the transB or transA
// mode.
type matMulGradOp struct {
	fwd  *matMulOp
	mode matMulMode
}

func (op *matMulGradOp) Name() string {
	return fmt.Sprintf("%s(%dx%dx%d)", [...]string{"", "matmul_tb", "matmul_ta"}[op.mode], op.fwd.n, op.fwd.k, op.fwd.m)
}

func (op *matMulGradOp) Key() string { return "" }

func (op *matMulGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	n, k, m := op.fwd.n, op.fwd.k, op.fwd.m
	if op.mode == transB {
		return []tensor.Shape{{n, m}, {k, m}}, tensor.Shape{n, k}
	}
	return []tensor.Shape{{n, k}, {n, m}}, tensor.Shape{k, m}
}

// DoInto computes the output into dst (opkit.Into).
func (op *matMulGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return matMulDo[float32](dst, op.fwd, op.mode, vals) },
		func() (gorgonia.Value, error) { return matMulDo[float64](dst, op.fwd, op.mode, vals) })
}

// DeviceDo runs the gradient's transposed product on the device. It runs when an input is on the device
// (see package internal/ops/device); host inputs are uploaded for the call.
func (op *matMulGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	return matMulDevice(b, op.fwd, op.mode, vals)
}

// matMulDo computes the product of mode of op's sizes.
func matMulDo[T num.Float](dst *tensor.Dense, op *matMulOp, mode matMulMode, vals []gorgonia.Value) (gorgonia.Value, error) {
	var in [2][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	a, b := in[0], in[1]
	shape := tensor.Shape{op.n, op.m}
	switch mode {
	case transB:
		shape = tensor.Shape{op.n, op.k}
	case transA:
		shape = tensor.Shape{op.k, op.m}
	}
	t, c := values.OverInto[T](dst, shape) // the products overwrite every element
	switch mode {
	case product:
		gemm.Mul(c, a, b, op.n, op.k, op.m)
	case transB:
		gemm.MulTransB(c, a, b, op.n, op.k, op.m)
	case transA:
		gemm.MulTransA(c, a, b, op.n, op.k, op.m)
	}
	return t, nil
}

var (
	_ opkit.Forward = (*matMulOp)(nil)
	_ device.Spec   = (*matMulOp)(nil)
	_ opkit.Spec    = (*matMulGradOp)(nil)
	_ device.Spec   = (*matMulGradOp)(nil)
)
