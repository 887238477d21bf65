package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/nn/internal/gemm"
)

// MatMulBias is MatMul(x, w) followed by AddBias with the bias b (M),
// computed by one op that adds b to the product where it writes it: a
// linear layer writes one (N, M) tensor instead of two, with the same
// bits. Its gradients are those of the two ops, by the same backward ops.
func MatMulBias(x, w, b *gorgonia.Node) (*gorgonia.Node, error) {
	mm, err := newMatMulOp("MatMulBias", x, w)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("nn: MatMulBias of a nil bias")
	}
	if !b.Shape().Eq(tensor.Shape{mm.m}) {
		return nil, fmt.Errorf("nn: MatMulBias: bias %q has shape %v, want (%d)", b.Name(), b.Shape(), mm.m)
	}
	if b.Dtype() != x.Dtype() {
		return nil, fmt.Errorf("nn: MatMulBias: bias %q is %v, %q %v", b.Name(), b.Dtype(), x.Name(), x.Dtype())
	}
	return apply(&matMulBiasOp{mm: mm}, x, w, b)
}

// matMulBiasOp is mm plus a bias row. With means, it sums the columns of
// its output as it adds the bias, for the batch norm that reads it
// (columnStats's blocks of rows; see sumsCache).
type matMulBiasOp struct {
	mm    *matMulOp
	means *sumsCache // may be nil
}

func (op *matMulBiasOp) Name() string {
	return fmt.Sprintf("matmul_bias(%dx%dx%d)", op.mm.n, op.mm.k, op.mm.m)
}

func (op *matMulBiasOp) Key() string { return "" }

func (op *matMulBiasOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	in, out := op.mm.Shapes()
	return append(in, tensor.Shape{op.mm.m}), out
}

// DoInto computes the output, into dst when it fits (see values.OverInto): the product
// overwrites every element.
func (op *matMulBiasOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return matMulBiasDo[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return matMulBiasDo[float64](dst, op, vals) })
}

// Grad builds the backward ops of MatMul and AddBias on grad: x's dY
// times w transposed, w's x transposed times dY, and b's column sums of
// dY.
func (op *matMulBiasOp) Grad(inputs gorgonia.Nodes, out, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := op.mm.Grad(inputs[:2], out, grad)
	if err != nil {
		return nil, err
	}
	// A batch norm's dx (the MLP of GIN: a linear layer, then batch norm)
	// sums its columns for the bias's gradient as it writes them.
	var sums *sumsCache
	if bg, ok := specOf[*batchNormGradOp](grad); ok && bg.kind == bnDX {
		sums = bg.colSums()
	}
	db, err := apply(&biasGradOp{fwd: &biasOp{shape: tensor.Shape{op.mm.n, op.mm.m}}, sums: sums}, grad)
	if err != nil {
		return nil, err
	}
	return append(d, db), nil
}

// matMulBiasDo is matMulDo's product, then biasDo's sum of every row and
// the bias, in place.
func matMulBiasDo[T num.Float](dst *tensor.Dense, op *matMulBiasOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	var in [3][]T
	if err := values.DataTo(in[:], vals); err != nil {
		return nil, err
	}
	x, wt, b := in[0], in[1], in[2]
	n, k, w := op.mm.n, op.mm.k, op.mm.m
	t, y := values.OverInto[T](dst, tensor.Shape{n, w})
	gemm.Mul(y, x, wt, n, k, w)
	if op.means != nil && w > 0 {
		sums := make([]float64, w)
		parallel.Sum(sums, n, statsRows, func(p []float64, lo, hi int) {
			addBiasRows(y[lo*w:hi*w], b, w)
			addColSums(p, y[lo*w:hi*w], w)
		})
		keepSums(op.means, y, sums)
		return t, nil
	}
	parallel.For(n, 1024, func(lo, hi int) {
		addBiasRows(y[lo*w:hi*w], b, w)
	})
	return t, nil
}

var _ opkit.Forward = (*matMulBiasOp)(nil)
