package link

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/ops"
)

// DistMult scores a pair (u, v) of relation r by sum_f h[u,f] w[r,f] h[v,f]
// (Yang et al., ICLR 2015), a bilinear form with a learnable diagonal per
// relation: ops.DistMult over the pair graph, one fused op. Build it with
// NewDistMult.
type DistMult struct {
	rels, dim int
	w         *gorgonia.Node
	name      string
}

// NewDistMult adds a DistMult decoder over rels relations of dim-wide
// embeddings to eg. Its relation table (rels x dim, named name+".rel") is
// Glorot-uniform initialised from the seed, as PyG's DistMult.
func NewDistMult(eg *gorgonia.ExprGraph, rels, dim int, opts ...Option) (*DistMult, error) {
	if eg == nil {
		return nil, fmt.Errorf("link: nil expression graph")
	}
	if rels <= 0 || dim <= 0 {
		return nil, fmt.Errorf("link: DistMult needs positive sizes, got %d relations of %d features", rels, dim)
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if c.combine != Concat || c.edgeFeat != 0 {
		return nil, fmt.Errorf("link: DistMult takes no combination or edge features (options of MLP and EdgeHead)")
	}
	c.Finish(eg, "distmult")
	ps := c.Params(eg)
	w := ps.Glorot("rel", 0, 1, rels, dim)
	return layerkit.Built(&DistMult{rels: rels, dim: dim, w: w, name: c.Name}, ps)
}

// Relations returns the relation table, rels x dim.
func (d *DistMult) Relations() *gorgonia.Node { return d.w }

// Learnables returns the relation table.
func (d *DistMult) Learnables() gorgonia.Nodes { return gorgonia.Nodes{d.w} }

// Score scores every pair under relation 0: the decoder of a graph with
// one relation. With more relations, use ScoreRelations.
func (d *DistMult) Score(pairs *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	if d.rels != 1 {
		return nil, fmt.Errorf("link: %s has %d relations: Score needs one, use ScoreRelations", d.name, d.rels)
	}
	if pairs == nil {
		return nil, fmt.Errorf("link: Score needs a pair graph and embeddings")
	}
	return d.ScoreRelations(pairs, h, make([]int32, pairs.NumEdges()))
}

// ScoreRelations scores every pair e of pairs under relation rel[e], in
// [0, rels).
func (d *DistMult) ScoreRelations(pairs *graph.Graph, h *gorgonia.Node, rel []int32) (*gorgonia.Node, error) {
	if err := checkPairs(pairs, h); err != nil {
		return nil, err
	}
	if s := h.Shape(); s[1] != d.dim {
		return nil, fmt.Errorf("link: %s scores %d-wide embeddings but %q has shape %v", d.name, d.dim, h.Name(), s)
	}
	return ops.DistMult(pairs, h, d.w, h, rel)
}
