package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// Aggregation is a graph-wide computation a layer builds, such as a
// normalised sum or GAT's attention and aggregation: a value that holds its
// constants, whose Local builds it on a graph held by one process. On a
// Sharded graph the placement builds its own counterpart of the same value
// (Sharded.Aggregate), so a layer states what it aggregates once, with On,
// and never asks where the graph lives.
type Aggregation interface {
	// Local builds the aggregation on g from its inputs, in the order
	// its type documents (nil for an optional input left out).
	Local(g *graph.Graph, in ...*gorgonia.Node) (*gorgonia.Node, error)
}

// On builds a on g, a *graph.Graph or a Sharded graph: the one place where
// a layer's aggregation is dispatched by placement.
func On(g Graph, a Aggregation, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	switch g := g.(type) {
	case Sharded:
		return g.Aggregate(a, in...)
	case *graph.Graph:
		if g != nil {
			return a.Local(g, in...)
		}
	case nil:
	default:
		return nil, fmt.Errorf("nn: the %T aggregation needs a *graph.Graph or an nn.Sharded graph, got %T", a, g)
	}
	return nil, fmt.Errorf("nn: %T aggregation on a nil graph", a)
}

// NormSum is the normalised sum over in-edges, optionally weighted: with
// inputs (x, ew), the sum over u -> v of ew_uv x_u d_src(u)^Src, times
// d_in(v)^Dst, with degrees clamped to 1; ew (E, 1), nil for no weights,
// is a constant on a Sharded graph. The source degree d_src is the
// out-degree, or the in-degree with SrcIn (the symmetric normalisation of
// DGL's SGConv, TAGConv and ChebConv), which needs a homogeneous graph and
// no weights.
type NormSum struct {
	Src, Dst float64
	SrcIn    bool
}

// Local is ops.NormalizedSum without weights; with them it is the source
// scaling, the u_mul_e sum and the destination scaling (each left out at
// power 0).
func (a NormSum) Local(g *graph.Graph, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	x, ew, err := operands("NormSum", in)
	if err != nil {
		return nil, err
	}
	if a.SrcIn {
		if ew != nil {
			return nil, fmt.Errorf("nn: NormSum with in-degree source scaling takes no edge weights")
		}
		h, err := ops.ScaleByDegree(g, x, ops.InDegree, a.Src)
		if err != nil {
			return nil, err
		}
		return ops.NormalizedSum(g, h, 0, a.Dst)
	}
	if ew == nil {
		return ops.NormalizedSum(g, x, a.Src, a.Dst)
	}
	h := x
	if a.Src != 0 {
		if h, err = ops.ScaleByDegree(g, h, ops.OutDegree, a.Src); err != nil {
			return nil, err
		}
	}
	if h, err = ops.UMulESum(g, h, ew); err != nil {
		return nil, err
	}
	if a.Dst != 0 {
		h, err = ops.ScaleByDegree(g, h, ops.InDegree, a.Dst)
	}
	return h, err
}

// Reduction reduces the messages x[u], each multiplied by its edge's
// weight when ew is given, onto every destination with Red: inputs (x,
// ew), ew (E, 1) or nil. On a Sharded graph edge weights (constants) go
// with the sum and the mean only.
type Reduction struct {
	Red ops.Reducer
}

// Local is ops.SpMM(g, ops.CopyLHS, Red, x, nil), or with weights
// ops.SpMM(g, ops.Mul, Red, x, ew).
func (a Reduction) Local(g *graph.Graph, in ...*gorgonia.Node) (*gorgonia.Node, error) {
	x, ew, err := operands("Reduction", in)
	if err != nil {
		return nil, err
	}
	if ew == nil {
		return ops.SpMM(g, ops.CopyLHS, a.Red, x, nil)
	}
	return ops.SpMM(g, ops.Mul, a.Red, x, ew)
}

// operands returns the inputs (x) or (x, ew) of an aggregation of node
// rows x with optional edge weights ew.
func operands(what string, in []*gorgonia.Node) (x, ew *gorgonia.Node, err error) {
	if len(in) == 0 || len(in) > 2 || in[0] == nil {
		return nil, nil, fmt.Errorf("nn: %s takes features and optional edge weights, got %d inputs", what, len(in))
	}
	if len(in) == 2 {
		ew = in[1]
	}
	return in[0], ew, nil
}
