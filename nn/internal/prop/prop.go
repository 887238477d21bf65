// Package prop holds the propagation steps that gnn's diffusion and
// spectral layers (SGConv, TAGConv, ChebConv, APPNP) share, built from the
// fused ops of package ops.
package prop

import (
	"fmt"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
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
	if s, ok := g.(nn.Sharded); ok {
		h, err := gorgonia.BroadcastHadamardProd(x, degreeColumn(x, s.InDegrees(), -0.5), nil, []byte{1})
		if err != nil {
			return nil, err
		}
		return s.NormalizedSum(h, 0, -0.5)
	}
	pg, err := nn.Local(g, "InSym")
	if err != nil {
		return nil, err
	}
	h, err := ops.ScaleByDegree(pg, x, ops.InDegree, -0.5)
	if err != nil {
		return nil, err
	}
	return ops.NormalizedSum(pg, h, 0, -0.5)
}

// degreeColumn is the constant (N, 1) column of max(deg, 1)^power in
// like's dtype.
func degreeColumn(like *gorgonia.Node, deg []int64, power float64) *gorgonia.Node {
	var backing any
	if like.Dtype() == tensor.Float32 {
		v := make([]float32, len(deg))
		for i, d := range deg {
			v[i] = num.DegreeFactor[float32](d, power)
		}
		backing = v
	} else {
		v := make([]float64, len(deg))
		for i, d := range deg {
			v[i] = num.DegreeFactor[float64](d, power)
		}
		backing = v
	}
	t := tensor.New(tensor.WithShape(len(deg), 1), tensor.WithBacking(backing))
	return gorgonia.NodeFromAny(like.Graph(), t, gorgonia.WithName(fmt.Sprintf("prop.degree^%g.%d", power, columns.Add(1))))
}

// columns numbers the degree columns, for unique node names.
var columns atomic.Uint64

// Sym returns D_in^-1/2 A^T D_out^-1/2 x, GraphConv's "both" norm (DGL's
// APPNPConv), optionally with a weight per edge ew (E, 1) multiplying each
// message: then the source scaling, the u_mul_e sum and the destination
// scaling are three ops.
func Sym(sg nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if s, ok := sg.(nn.Sharded); ok {
		if ew == nil {
			return s.NormalizedSum(x, -0.5, -0.5)
		}
		return s.WeightedSum(x, ew, -0.5, -0.5)
	}
	g, err := nn.Local(sg, "Sym")
	if err != nil {
		return nil, err
	}
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

// Weighted returns the sum over the in-edges u -> v of ew_uv x_u (a u_mul_e
// SpMM), ew (E, 1); on a Sharded graph, over the whole graph (ew's rows
// in EdgeIDs order, constants).
func Weighted(g nn.Graph, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if s, ok := g.(nn.Sharded); ok {
		return s.WeightedSum(x, ew, 0, 0)
	}
	pg, err := nn.Local(g, "Weighted")
	if err != nil {
		return nil, err
	}
	return ops.UMulESum(pg, x, ew)
}
