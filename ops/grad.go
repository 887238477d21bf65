package ops

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
)

// scatter sums per-edge rows x onto the rows of target t: the gradient of
// reading an operand at t once per edge.
func scatter(g *graph.Graph, t Target, x *gorgonia.Node) (*gorgonia.Node, error) {
	switch t {
	case U:
		return SpMM(g.Reverse(), CopyRHS, Sum, nil, x)
	case V:
		return SpMM(g, CopyRHS, Sum, nil, x)
	}
	return x, nil
}

// productGrad returns the gradient with respect to x of the per-edge product
// x[at xt] * y[at yt], given the gradient grad of that product (one row per
// edge), summed to x's feature shape. When x and y sit on opposite ends of the
// edges the product and the sum onto x's rows fuse into one SpMM; otherwise
// the per-edge product is formed first.
func productGrad(g *graph.Graph, grad, y *gorgonia.Node, yt, xt Target, xShape []int) (*gorgonia.Node, error) {
	var d *gorgonia.Node
	var err error
	switch {
	case xt == U && yt == V:
		d, err = SpMM(g.Reverse(), Mul, Sum, y, grad)
	case xt == V && yt == U:
		d, err = SpMM(g, Mul, Sum, y, grad)
	default:
		if d, err = SDDMM(g, Mul, grad, E, y, yt); err == nil {
			d, err = scatter(g, xt, d)
		}
	}
	if err != nil {
		return nil, err
	}
	return sumTo(d, xShape)
}

// canonical rewrites Sub as Add of the negated right operand and Div as Mul
// of its reciprocal, as DGL does, so kernels and gradients only see Add, Mul
// and Dot. Other operators are returned as they are.
func canonical(op Binary, rhs *gorgonia.Node) (Binary, *gorgonia.Node, error) {
	var err error
	switch op {
	case Sub:
		rhs, err = gorgonia.Neg(rhs)
		op = Add
	case Div:
		rhs, err = gorgonia.Inverse(rhs)
		op = Mul
	}
	return op, rhs, err
}

// reshape wraps gorgonia.Reshape, skipping it when the shape already matches.
func reshape(x *gorgonia.Node, to tensor.Shape) (*gorgonia.Node, error) {
	if x.Shape().Eq(to) {
		return x, nil
	}
	return gorgonia.Reshape(x, to)
}
