// Package prop holds the propagation steps that gnn's diffusion and
// spectral layers (SGConv, TAGConv, ChebConv, APPNP) share, built from the
// fused ops of package ops.
package prop

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// InSym returns D^-1/2 A^T D^-1/2 x on a homogeneous graph g, with D the
// in-degrees clamped to 1 on both sides: the normalisation of DGL's
// SGConv, TAGConv and ChebConv, which take the in-degree for the source
// side too (GraphConv's "both" takes the out-degree there; the two agree
// on symmetric graphs). It is two fused ops, the source scaling and the
// sum with the destination scaling, each one N x F tensor.
func InSym(g *graph.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	h, err := ops.ScaleByDegree(g, x, ops.InDegree, -0.5)
	if err != nil {
		return nil, err
	}
	return ops.NormalizedSum(g, h, 0, -0.5)
}

// Sym returns D_in^-1/2 A^T D_out^-1/2 x, GraphConv's "both" norm (DGL's
// APPNPConv), optionally with a weight per edge ew (E, 1) multiplying each
// message: then the source scaling, the u_mul_e sum and the destination
// scaling are three ops.
func Sym(g *graph.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if ew == nil {
		return ops.NormalizedSum(g, x, -0.5, -0.5)
	}
	h, err := ops.ScaleByDegree(g, x, ops.OutDegree, -0.5)
	if err != nil {
		return nil, err
	}
	if h, err = ops.UMulESum(g, h, ew); err != nil {
		return nil, err
	}
	return ops.ScaleByDegree(g, h, ops.InDegree, -0.5)
}
