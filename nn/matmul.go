package nn

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/opkit"
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
	if x == nil || w == nil {
		return nil, fmt.Errorf("nn: MatMul of a nil node")
	}
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 2 || len(ws) != 2 {
		return nil, fmt.Errorf("nn: MatMul needs two matrices, got shapes %v (%q) and %v (%q)", xs, x.Name(), ws, w.Name())
	}
	if xs[1] != ws[0] {
		return nil, fmt.Errorf("nn: MatMul: %q is %v but %q is %v: inner sizes differ", x.Name(), xs, w.Name(), ws)
	}
	if x.Dtype() != w.Dtype() || (x.Dtype() != tensor.Float32 && x.Dtype() != tensor.Float64) {
		return nil, fmt.Errorf("nn: MatMul: dtypes %v (%q) and %v (%q); want both float32 or both float64", x.Dtype(), x.Name(), w.Dtype(), w.Name())
	}
	return gorgonia.ApplyOp(&matMulOp{n: xs[0], k: xs[1], m: ws[1], mode: product}, x, w)
}

// matMulMode selects the product a matMulOp computes from its inputs a, b.
type matMulMode int

const (
	product matMulMode = iota // a (n x k) times b (k x m)
	transB                    // a (n x m) times b (k x m) transposed: n x k
	transA                    // a (n x k) transposed times b (n x m): k x m
)

// matMulOp is a product of two matrices; the transB and transA modes are
// the gradients of the product and are not differentiable again.
type matMulOp struct {
	opkit.CPUOp
	n, k, m int // of the forward product
	mode    matMulMode
}

// shapes returns the input and output shapes of the op.
func (op *matMulOp) shapes() (a, b, out tensor.Shape) {
	n, k, m := op.n, op.k, op.m
	switch op.mode {
	case transB:
		return tensor.Shape{n, m}, tensor.Shape{k, m}, tensor.Shape{n, k}
	case transA:
		return tensor.Shape{n, k}, tensor.Shape{n, m}, tensor.Shape{k, m}
	}
	return tensor.Shape{n, k}, tensor.Shape{k, m}, tensor.Shape{n, m}
}

func (op *matMulOp) Arity() int { return 2 }

func (op *matMulOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := gorgonia.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(t, t, t)
}

func (op *matMulOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("nn: %v takes 2 inputs, got %d", op, len(in))
	}
	a, b, out := op.shapes()
	for i, want := range []tensor.Shape{a, b} {
		if s, ok := in[i].(tensor.Shape); !ok || !s.Eq(want) {
			return nil, fmt.Errorf("nn: %v input %d has shape %v, want %v", op, i, in[i], want)
		}
	}
	return out, nil
}

func (op *matMulOp) String() string {
	return fmt.Sprintf("%s(%dx%dx%d)", [...]string{"matmul", "matmul_tb", "matmul_ta"}[op.mode], op.n, op.k, op.m)
}

func (op *matMulOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }

func (op *matMulOp) Hashcode() uint32 { return opkit.HashOf(op) }

func (op *matMulOp) Do(vals ...gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return matMulDo[float32](op, vals) },
		func() (gorgonia.Value, error) { return matMulDo[float64](op, vals) })
}

func matMulDo[T num.Float](op *matMulOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	if len(vals) != 2 {
		return nil, fmt.Errorf("nn: %v takes 2 inputs, got %d", op, len(vals))
	}
	a, err := values.Data[T](vals[0])
	if err != nil {
		return nil, err
	}
	b, err := values.Data[T](vals[1])
	if err != nil {
		return nil, err
	}
	_, _, shape := op.shapes()
	t, c := values.Alloc[T](shape)
	switch op.mode {
	case product:
		gemm.Mul(c, a, b, op.n, op.k, op.m)
	case transB:
		gemm.MulTransB(c, a, b, op.n, op.k, op.m)
	case transA:
		gemm.MulTransA(c, a, b, op.n, op.k, op.m)
	}
	return t, nil
}

func (op *matMulOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = op.mode == product
	}
	return d
}

func (op *matMulOp) SymDiff(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if op.mode != product {
		return nil, fmt.Errorf("nn: %v is a backward op and is not differentiable", op)
	}
	dx, err := gorgonia.ApplyOp(&matMulOp{n: op.n, k: op.k, m: op.m, mode: transB}, grad, inputs[1])
	if err != nil {
		return nil, err
	}
	dw, err := gorgonia.ApplyOp(&matMulOp{n: op.n, k: op.k, m: op.m, mode: transA}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dw}, nil
}

var (
	_ gorgonia.Op   = (*matMulOp)(nil)
	_ gorgonia.SDOp = (*matMulOp)(nil)
)
