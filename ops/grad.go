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
		return spmmNode(g.Reverse(), CopyRHS, Sum, nil, x)
	case V:
		return spmmNode(g, CopyRHS, Sum, nil, x)
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
		d, err = spmmNode(g.Reverse(), Mul, Sum, y, grad)
	case xt == V && yt == U:
		d, err = spmmNode(g, Mul, Sum, y, grad)
	default:
		if d, err = sddmmNode(g, Mul, grad, E, y, yt); err == nil {
			d, err = scatter(g, xt, d)
		}
	}
	if err != nil {
		return nil, err
	}
	return sumTo(d, xShape)
}

// quotientGrad returns the gradient with respect to x of the per-edge
// quotient x[at xt] / y[at yt], given the gradient grad of the quotient (one
// row per edge), summed to x's feature shape. When x and y sit on opposite
// ends of the edges it is productGrad with 1/y (node rows); otherwise the
// per-edge quotient grad / y is formed first.
func quotientGrad(g *graph.Graph, grad, y *gorgonia.Node, yt, xt Target, xShape []int) (*gorgonia.Node, error) {
	if (xt == U && yt == V) || (xt == V && yt == U) {
		inv, err := gorgonia.Inverse(y)
		if err != nil {
			return nil, err
		}
		return productGrad(g, grad, inv, yt, xt, xShape)
	}
	d, err := sddmmNode(g, Div, grad, E, y, yt)
	if err != nil {
		return nil, err
	}
	if d, err = scatter(g, xt, d); err != nil {
		return nil, err
	}
	return sumTo(d, xShape)
}

// negOverSquare returns -d / (y * y) elementwise, for d and y of one shape:
// the gradient with respect to the divisor y of a quotient x / y, given d,
// the gradient summed against x.
func negOverSquare(d, y *gorgonia.Node) (*gorgonia.Node, error) {
	sq, err := gorgonia.Square(y)
	if err != nil {
		return nil, err
	}
	if d, err = gorgonia.HadamardDiv(d, sq); err != nil {
		return nil, err
	}
	return gorgonia.Neg(d)
}

// empty reports whether x has no elements.
func empty(x *gorgonia.Node) bool { return x.Shape().TotalSize() == 0 }

// reshape wraps gorgonia.Reshape, skipping it when the shape already matches.
func reshape(x *gorgonia.Node, to tensor.Shape) (*gorgonia.Node, error) {
	if x.Shape().Eq(to) {
		return x, nil
	}
	return gorgonia.Reshape(x, to)
}
