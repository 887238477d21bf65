package gcn

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
)

// ForwardSparse is Forward for sparse input features (NumSrc x in): the
// feature transform x W is an SpMM over the non-zeros, so bag-of-words
// inputs are never densified. The layer must have a weight.
func (l *GraphConv) ForwardSparse(g nn.Graph, x *nn.Sparse) (*gorgonia.Node, error) {
	if nn.IsNil(g) || x == nil {
		return nil, fmt.Errorf("gcn: ForwardSparse needs a graph and features")
	}
	if l.w == nil {
		return nil, fmt.Errorf("gcn: %s: ForwardSparse needs a layer with a weight", l.cfg.Name)
	}
	if x.Rows != g.NumSrc() || x.Cols != l.in {
		return nil, fmt.Errorf("gcn: %s: sparse features are %d x %d, want (%d, %d)", l.cfg.Name, x.Rows, x.Cols, g.NumSrc(), l.in)
	}
	if err := l.checkGraph(g); err != nil {
		return nil, err
	}
	h, err := x.MatMul(l.w)
	if err != nil {
		return nil, err
	}
	return l.propagate(g, h, nil, true)
}
