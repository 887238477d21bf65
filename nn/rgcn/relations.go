package rgcn

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
)

// Relations is a homogeneous graph split by relation: one graph over all
// its nodes per relation, holding the edges of that relation in increasing
// edge-ID order, and their norms. Build it with Group; it is immutable and
// may serve every layer of a model.
type Relations struct {
	numNodes int
	graphs   []*graph.Graph
	norms    [][]float64 // nil when no norm was given
	edges    [][]int64   // edges[r][k]: ID in the whole graph of relation r's edge k
}

// Group splits g by the relation of each edge, etypes[e] in [0, numRels),
// with norm[e] the weight of edge e's message (nil for none). It returns an
// error naming the first edge at fault when g is nil or not homogeneous,
// numRels is not positive, etypes or norm do not have one entry per edge,
// a relation is out of range, or a norm is not finite.
func Group(g *graph.Graph, etypes []int32, numRels int, norm []float64) (*Relations, error) {
	if g == nil {
		return nil, fmt.Errorf("rgcn: nil graph")
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("rgcn: graph has %d source and %d destination nodes; it must be homogeneous", g.NumSrc(), g.NumDst())
	}
	if numRels <= 0 {
		return nil, fmt.Errorf("rgcn: %d relations; want at least 1", numRels)
	}
	if len(etypes) != g.NumEdges() {
		return nil, fmt.Errorf("rgcn: %d relation IDs for %d edges", len(etypes), g.NumEdges())
	}
	if norm != nil && len(norm) != g.NumEdges() {
		return nil, fmt.Errorf("rgcn: %d norms for %d edges", len(norm), g.NumEdges())
	}
	counts := make([]int, numRels)
	for e, r := range etypes {
		if r < 0 || int(r) >= numRels {
			return nil, fmt.Errorf("rgcn: edge %d has relation %d but there are %d relations", e, r, numRels)
		}
		if norm != nil && (math.IsNaN(norm[e]) || math.IsInf(norm[e], 0)) {
			return nil, fmt.Errorf("rgcn: edge %d has norm %v", e, norm[e])
		}
		counts[r]++
	}
	src, dst := g.COO()
	ss, ds := make([][]int32, numRels), make([][]int32, numRels)
	rel := &Relations{numNodes: g.NumSrc(), graphs: make([]*graph.Graph, numRels), edges: make([][]int64, numRels)}
	if norm != nil {
		rel.norms = make([][]float64, numRels)
	}
	for r, c := range counts {
		ss[r], ds[r], rel.edges[r] = make([]int32, 0, c), make([]int32, 0, c), make([]int64, 0, c)
		if norm != nil {
			rel.norms[r] = make([]float64, 0, c)
		}
	}
	for e, r := range etypes {
		ss[r], ds[r] = append(ss[r], src[e]), append(ds[r], dst[e])
		rel.edges[r] = append(rel.edges[r], int64(e))
		if norm != nil {
			rel.norms[r] = append(rel.norms[r], norm[e])
		}
	}
	for r := range numRels {
		gr, err := graph.FromCOO(g.NumSrc(), g.NumDst(), ss[r], ds[r])
		if err != nil {
			return nil, fmt.Errorf("rgcn: relation %d: %w", r, err)
		}
		rel.graphs[r] = gr
	}
	return rel, nil
}

// RightNorm returns DGL's usual R-GCN norm for each edge of g: 1 over the
// number of in-edges of its destination that share its relation.
func RightNorm(g *graph.Graph, etypes []int32, numRels int) ([]float64, error) {
	rel, err := Group(g, etypes, numRels, nil)
	if err != nil {
		return nil, err
	}
	norm := make([]float64, g.NumEdges())
	for r, gr := range rel.graphs {
		deg := gr.InDegrees()
		_, d := gr.COO()
		for k, v := range d {
			norm[rel.edges[r][k]] = 1 / float64(deg[v])
		}
	}
	return norm, nil
}

// NumRelations returns the number of relations.
func (r *Relations) NumRelations() int { return len(r.graphs) }

// NumNodes returns the number of nodes.
func (r *Relations) NumNodes() int { return r.numNodes }

// Graph returns relation i's graph over all the nodes.
func (r *Relations) Graph(i int) *graph.Graph { return r.graphs[i] }
