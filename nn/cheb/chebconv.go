package cheb

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/nn/internal/prop"
)

// ChebConv is a Chebyshev spectral graph convolution. Build it with New.
type ChebConv struct {
	in, out, k int
	cfg        config
	lin        prop.Linear // (K*in, out)
}

// New adds a ChebConv of k Chebyshev terms (DGL's k: k = 1 is the linear
// map alone) with in input and out output features to eg. The weight
// (k*in, out) is Glorot-uniform initialised (DGL leaves PyTorch's default
// Linear initialisation); the bias starts at 0.
func New(eg *gorgonia.ExprGraph, in, out, k int, opts ...Option) (*ChebConv, error) {
	if k < 1 {
		return nil, fmt.Errorf("cheb: %d Chebyshev terms, want at least 1", k)
	}
	c := config{lambda: 2}
	c.Bias, c.Act = true, nn.ReLU
	ps, err := kit.Build(eg, in, out, &c, opts)
	if err != nil {
		return nil, err
	}
	lin := prop.NewLinear(ps, 1, k*in, out, c.Bias)
	return layerkit.Built(&ChebConv{in: in, out: out, k: k, cfg: c, lin: lin}, ps)
}

// Learnables returns the weight, then the bias if the layer has one.
func (l *ChebConv) Learnables() gorgonia.Nodes { return l.lin.Learnables() }

// Forward applies the layer to x (N x in) on the homogeneous graph g with
// the layer's lambda_max and returns (N, out). ChebConv has no sharded
// (distributed) path: g must be a *graph.Graph.
func (l *ChebConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	return l.ForwardLambda(g, x, l.cfg.lambda)
}

// ForwardLambda is Forward with lambdaMax, the largest eigenvalue of g's
// normalised Laplacian (DGL's lambda_max argument; see LambdaMax).
func (l *ChebConv) ForwardLambda(g nn.Graph, x *gorgonia.Node, lambdaMax float64) (*gorgonia.Node, error) {
	pg, err := nn.Local(g, "cheb: "+l.cfg.Name)
	if err != nil {
		return nil, err
	}
	if err := checkLambda(lambdaMax); err != nil {
		return nil, err
	}
	return l.forward(pg, x, lambdaMax)
}

func (l *ChebConv) forward(g *graph.Graph, x *gorgonia.Node, lambda float64) (*gorgonia.Node, error) {
	name := l.cfg.Name
	if err := l.cfg.CheckHomogeneous(g, x, l.in, "ChebConv"); err != nil {
		return nil, err
	}
	terms, err := chebyshev(g, x, l.k, 2/lambda)
	if err != nil {
		return nil, fmt.Errorf("cheb: %s: %w", name, err)
	}
	h := terms[0]
	if len(terms) > 1 {
		if h, err = gorgonia.Concat(1, terms...); err != nil {
			return nil, err
		}
	}
	return l.lin.Apply(h, l.cfg.Act)
}

// chebyshev returns the k terms X_0 … X_{k-1} of the recurrence with
// r = 2/λ_max: L~ X = -r Â X + (r-1) X, Â = D^-1/2 A^T D^-1/2.
func chebyshev(g *graph.Graph, x *gorgonia.Node, k int, r float64) (gorgonia.Nodes, error) {
	terms := gorgonia.Nodes{x}
	for i := 1; i < k; i++ {
		prev := terms[i-1]
		ax, err := prop.InSym(g, prev)
		if err != nil {
			return nil, err
		}
		var t *gorgonia.Node
		if i == 1 {
			t, err = nn.Combine([]float64{-r, r - 1}, ax, prev)
		} else {
			t, err = nn.Combine([]float64{-2 * r, 2 * (r - 1), -1}, ax, prev, terms[i-2])
		}
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return terms, nil
}

var _ nn.Layer = (*ChebConv)(nil)
