package prop

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// Linear is the linear map SGConv, TAGConv and ChebConv end with: a weight
// (rows, out), Glorot-uniform from the layer's seed stream 0, and an
// optional bias starting at 0, named name+".weight" and name+".bias".
type Linear struct {
	W, B *gorgonia.Node // B nil without bias
}

// NewLinear adds the parameters of a Linear with ps; ps.Err reports a
// failure.
func NewLinear(ps *layerkit.Params, gain float64, rows, out int, bias bool) Linear {
	l := Linear{W: ps.Glorot("weight", 0, gain, rows, out)}
	if bias {
		l.B = ps.Zeros("bias", out)
	}
	return l
}

// Learnables returns the weight, then the bias if there is one.
func (l Linear) Learnables() gorgonia.Nodes {
	if l.B == nil {
		return gorgonia.Nodes{l.W}
	}
	return gorgonia.Nodes{l.W, l.B}
}

// Apply returns act(h W + b); act may be nil.
func (l Linear) Apply(h *gorgonia.Node, act nn.Activation) (*gorgonia.Node, error) {
	h, err := nn.MatMul(h, l.W)
	if err != nil {
		return nil, err
	}
	if l.B != nil {
		if h, err = nn.AddBias(h, l.B); err != nil {
			return nil, err
		}
	}
	if act != nil {
		return act(h)
	}
	return h, nil
}
