package prop

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Linear is the linear map SGConv, TAGConv and ChebConv end with: a weight
// (rows, out), Glorot-uniform, and an optional bias starting at 0, named
// name+".weight" and name+".bias".
type Linear struct {
	W, B *gorgonia.Node // B nil without bias
}

// NewLinear adds the parameters of a Linear to eg.
func NewLinear(eg *gorgonia.ExprGraph, name string, dt tensor.Dtype, seed uint64, gain float64, rows, out int, bias bool) (Linear, error) {
	w, err := nn.Glorot(dt, nn.ParamSeed(seed, 0), gain, rows, out)
	if err != nil {
		return Linear{}, err
	}
	l := Linear{W: nn.Param(eg, name+".weight", w)}
	if bias {
		l.B = nn.Param(eg, name+".bias", nn.Zeros(dt, out))
	}
	return l, nil
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

// CheckSizes is the constructor check these layers share: an expression
// graph and positive feature sizes; pkg prefixes the error.
func CheckSizes(pkg string, eg *gorgonia.ExprGraph, in, out int) error {
	if eg == nil {
		return fmt.Errorf("%s: nil expression graph", pkg)
	}
	if in <= 0 || out <= 0 {
		return fmt.Errorf("%s: feature sizes must be positive, got in %d, out %d", pkg, in, out)
	}
	return nil
}

// CheckInput is the Forward check these layers share: a homogeneous graph
// and features (NumSrc, in) of dtype dt. pkg and name (the layer's)
// prefix the error, kind names the layer.
func CheckInput(pkg, name, kind string, g nn.Graph, x *gorgonia.Node, in int, dt tensor.Dtype) error {
	if nn.IsNil(g) || x == nil {
		return fmt.Errorf("%s: %s: Forward needs a graph and features", pkg, name)
	}
	if g.NumSrc() != g.NumDst() {
		return fmt.Errorf("%s: %s: graph has %d source and %d destination nodes; %s needs a homogeneous graph", pkg, name, g.NumSrc(), g.NumDst(), kind)
	}
	if s := x.Shape(); len(s) != 2 || s[0] != g.NumSrc() || s[1] != in {
		return fmt.Errorf("%s: %s: features %q have shape %v, want (%d, %d)", pkg, name, x.Name(), s, g.NumSrc(), in)
	}
	if x.Dtype() != dt {
		return fmt.Errorf("%s: %s: features have dtype %v, the layer %v", pkg, name, x.Dtype(), dt)
	}
	return nil
}
