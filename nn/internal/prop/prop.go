// Package prop holds the propagation steps that gnn's diffusion and
// spectral layers (SGConv, TAGConv, ChebConv, APPNP) share, built from the
// fused ops of package ops.
package prop

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// InSym returns D^-1/2 A^T D^-1/2 x on a homogeneous graph g, with D the
// in-degrees clamped to 1 on both sides: the normalisation of DGL's
// SGConv, TAGConv and ChebConv, which take the in-degree for the source
// side too (GraphConv's "both" takes the out-degree there; the two agree
// on symmetric graphs). It is two fused ops, the source scaling and the
// sum with the destination scaling, each one N x F tensor. On a Sharded
// graph the degrees are the whole graph's.
func InSym(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return nn.On(g, nn.NormSum{Src: -0.5, Dst: -0.5, SrcIn: true}, x, nil)
}

// Sym returns D_in^-1/2 A^T D_out^-1/2 x, GraphConv's "both" norm (DGL's
// APPNPConv), optionally with a weight per edge ew (E, 1) multiplying each
// message: then the source scaling, the u_mul_e sum and the destination
// scaling are three ops.
func Sym(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	return nn.On(g, nn.NormSum{Src: -0.5, Dst: -0.5}, x, ew)
}

// EdgeWeightNorm returns DGL's EdgeWeightNorm("both") of the edge weights
// ew (E, 1): w_uv / sqrt(w_out(u) w_in(v)), with w_out(u) the sum of the
// weights of u's out-edges and w_in(v) that of v's in-edges. The weights
// should be positive (DGL rejects others); a node's sums are only read
// through its own edges, so nodes without edges do no harm.
func EdgeWeightNorm(g *graph.Graph, ew *gorgonia.Node) (*gorgonia.Node, error) {
	out, err := ops.CopyESum(g.Reverse(), ew)
	if err != nil {
		return nil, err
	}
	in, err := ops.CopyESum(g, ew)
	if err != nil {
		return nil, err
	}
	if out, err = invSqrt(out); err != nil {
		return nil, err
	}
	if in, err = invSqrt(in); err != nil {
		return nil, err
	}
	scale, err := ops.UMulV(g, out, in)
	if err != nil {
		return nil, err
	}
	return ops.EMulE(g, ew, scale)
}

// Column returns the edge weights ew, a vector of E elements or an (E, 1)
// column, as a column.
func Column(ew *gorgonia.Node) (*gorgonia.Node, error) {
	if s := ew.Shape(); len(s) == 1 {
		return gorgonia.Reshape(ew, tensor.Shape{s[0], 1})
	}
	return ew, nil
}

// Hops returns x and its k propagation steps, [x, S x, ..., S^k x], with S
// the sum weighted by ew (E, 1) when ew is not nil (Weighted) and InSym
// otherwise: SGConv keeps the last, TAGConv all.
func Hops(g nn.Graph, x, ew *gorgonia.Node, k int) (gorgonia.Nodes, error) {
	hops := make(gorgonia.Nodes, 1, k+1)
	hops[0] = x
	h := x
	for range k {
		var err error
		if ew != nil {
			h, err = Weighted(g, h, ew)
		} else {
			h, err = InSym(g, h)
		}
		if err != nil {
			return nil, err
		}
		hops = append(hops, h)
	}
	return hops, nil
}

// Weighted returns the sum over the in-edges u -> v of ew_uv x_u (a u_mul_e
// SpMM), ew (E, 1); on a Sharded graph, over the whole graph (ew's rows
// in EdgeIDs order, constants).
func Weighted(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	return nn.On(g, nn.NormSum{}, x, ew)
}
