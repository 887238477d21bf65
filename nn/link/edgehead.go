package link

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
)

// EdgeHead predicts a property of edges (edge classification or
// regression) from the embeddings of their endpoints and, optionally,
// features of the edges themselves: a multilayer perceptron on [h_u, h_v,
// ef] (or [h_u * h_v, ef] with Hadamard), with ReLU between layers, to out
// outputs per edge. Train it with nn.CrossEntropy on the logits (out
// classes, one label per edge) or MSE (out targets per edge). Build it
// with NewEdgeHead.
type EdgeHead struct {
	s *stack
}

// NewEdgeHead adds an edge head for in-wide embeddings, through the given
// hidden widths, to out outputs per edge, to eg. WithEdgeFeatures(d) adds
// d features per edge to its input. Weights are Glorot-uniform
// initialised from the seed (the first layer's as one matrix over all its
// inputs), biases start at 0.
func NewEdgeHead(eg *gorgonia.ExprGraph, in int, hidden []int, out int, opts ...Option) (*EdgeHead, error) {
	s, err := newStack(eg, "edgehead", in, hidden, out, opts)
	if err != nil {
		return nil, err
	}
	return &EdgeHead{s: s}, nil
}

// Forward returns out outputs for every edge of pairs, (E, out), from the
// embeddings h (one row per node of pairs) and the edge features ef (E, d),
// which must be nil unless the head was built WithEdgeFeatures(d).
func (e *EdgeHead) Forward(pairs *graph.Graph, h, ef *gorgonia.Node) (*gorgonia.Node, error) {
	return e.s.forward(pairs, h, ef)
}

// Learnables returns the parameters, first layer first.
func (e *EdgeHead) Learnables() gorgonia.Nodes { return e.s.learnables() }
