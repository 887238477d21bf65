package link

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
)

// MLP scores a pair by a multilayer perceptron on its endpoints'
// embeddings: on [h_u, h_v] (Concat, the default) or h_u * h_v (Hadamard,
// see WithCombine), through hidden layers with ReLU to one logit. Unlike
// the other decoders it forms a row per pair for every layer (E x hidden;
// E x F for Hadamard). Build it with NewMLP.
type MLP struct {
	s *stack
}

// NewMLP adds an MLP decoder for in-wide embeddings with the given hidden
// widths (none: a linear decoder) to eg. Weights are Glorot-uniform
// initialised from the seed, biases start at 0; parameters are named
// name+".w0u", ".w0v" (Concat), ".b0", then ".w1", ".b1", ... for the
// further layers.
func NewMLP(eg *gorgonia.ExprGraph, in int, hidden []int, opts ...Option) (*MLP, error) {
	s, err := newStack(eg, "mlp", in, hidden, 1, opts)
	if err != nil {
		return nil, err
	}
	if s.cfg.edgeFeat != 0 {
		return nil, fmt.Errorf("link: the MLP decoder takes no edge features (EdgeHead does)")
	}
	return &MLP{s: s}, nil
}

// Score returns one logit per pair, (E, 1).
func (m *MLP) Score(pairs *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	return m.s.forward(pairs, h, nil)
}

// Learnables returns the parameters, first layer first.
func (m *MLP) Learnables() gorgonia.Nodes { return m.s.learnables() }
