package gat

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
)

// ForwardSparse is Forward for sparse input features (N x in): the
// projections x W (and the residual projection) are SpMMs over the non-zeros,
// and feature dropout drops non-zero values, so bag-of-words inputs are never
// densified. An identity residual needs dense input and is an error here.
func (l *GATConv) ForwardSparse(g nn.Graph, x *nn.Sparse) (*gorgonia.Node, error) {
	if nn.IsNil(g) || x == nil {
		return nil, fmt.Errorf("gat: ForwardSparse needs a graph and features")
	}
	if g.NumSrc() != g.NumDst() {
		return nil, fmt.Errorf("gat: %s: ForwardSparse needs a homogeneous graph", l.cfg.Name)
	}
	if x.Rows != g.NumSrc() || x.Cols != l.in {
		return nil, fmt.Errorf("gat: %s: sparse features are %d x %d, want (%d, %d)", l.cfg.Name, x.Rows, x.Cols, g.NumSrc(), l.in)
	}
	if l.cfg.residual && l.res == nil {
		return nil, fmt.Errorf("gat: %s: an identity residual needs dense features", l.cfg.Name)
	}
	if err := l.checkGraph(g); err != nil {
		return nil, err
	}
	if l.cfg.edgeDim > 0 {
		return nil, fmt.Errorf("gat: %s: ForwardSparse has no edge features; the layer takes some (use ForwardEdges)", l.cfg.Name)
	}
	var err error
	if l.cfg.Dropout > 0 {
		if x, err = x.Dropout(l.cfg.Dropout, l.dropSeed(1), l.cfg.Mode); err != nil {
			return nil, err
		}
	}
	flat, err := x.MatMul(l.w)
	if err != nil {
		return nil, err
	}
	var res *gorgonia.Node
	if l.res != nil {
		if res, err = x.MatMul(l.res); err != nil {
			return nil, err
		}
	}
	out, _, err := l.attend(g, flat, nil, res, nil, nil, false)
	return out, err
}
