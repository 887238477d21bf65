package link

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// Decoder scores node pairs from node embeddings. pairs is a pair graph:
// its edges are the (u, v) pairs to score (the positive or the negative
// edges of a batch) and its nodes are the rows of h, the (N, F) embeddings
// (so pairs has N source and N destination nodes). Score returns one logit
// per pair, (E, 1), in edge-ID order; Learnables returns the decoder's
// parameters (none for Dot and Cosine).
type Decoder interface {
	Score(pairs *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error)
	Learnables() gorgonia.Nodes
}

// Dot scores a pair by the dot product of its endpoints' embeddings, the
// GAE decoder: ops.UDotV over the pair graph, one fused op that never
// gathers the rows onto the pairs.
type Dot struct{}

// Score returns <h[u], h[v]> for every pair (u, v).
func (Dot) Score(pairs *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkPairs(pairs, h); err != nil {
		return nil, err
	}
	return ops.UDotV(pairs, h, h)
}

// Learnables returns nil: Dot has no parameters.
func (Dot) Learnables() gorgonia.Nodes { return nil }

// Cosine scores a pair by the cosine similarity of its endpoints'
// embeddings, each norm clamped by Eps (0 means 1e-8, PyTorch's default):
// ops.UCosV over the pair graph.
type Cosine struct {
	Eps float64
}

// Score returns the cosine of h[u] and h[v] for every pair (u, v).
func (c Cosine) Score(pairs *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkPairs(pairs, h); err != nil {
		return nil, err
	}
	eps := c.Eps
	if eps == 0 {
		eps = 1e-8
	}
	return ops.UCosV(pairs, h, h, eps)
}

// Learnables returns nil: Cosine has no parameters.
func (Cosine) Learnables() gorgonia.Nodes { return nil }

// checkPairs checks that pairs is a pair graph over the rows of h.
func checkPairs(pairs *graph.Graph, h *gorgonia.Node) error {
	if pairs == nil || h == nil {
		return fmt.Errorf("link: Score needs a pair graph and embeddings")
	}
	s := h.Shape()
	if len(s) != 2 {
		return fmt.Errorf("link: embeddings %q have shape %v, want (nodes, features)", h.Name(), s)
	}
	if pairs.NumSrc() != s[0] || pairs.NumDst() != s[0] {
		return fmt.Errorf("link: the pair graph has %d source and %d destination nodes but the embeddings %q have %d rows", pairs.NumSrc(), pairs.NumDst(), h.Name(), s[0])
	}
	if pairs.NumEdges() == 0 {
		return fmt.Errorf("link: the pair graph has no pairs to score")
	}
	return nil
}

var (
	_ Decoder = Dot{}
	_ Decoder = Cosine{}
	_ Decoder = (*DistMult)(nil)
	_ Decoder = (*MLP)(nil)
)
