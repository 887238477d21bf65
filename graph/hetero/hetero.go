package hetero

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gnngo/gnn/graph"
)

// Graph is an immutable heterogeneous graph: node types with their counts
// and canonical edge types, each backed by a *graph.Graph from the source
// type's nodes to the destination type's. Types are sorted (see the package
// documentation) and a type's ID is its position in NodeTypes or EdgeTypes.
type Graph struct {
	ntypes []string
	counts []int
	etypes []EdgeType
	rels   []*graph.Graph
	src    []int // node type ID of each edge type's source
	dst    []int // node type ID of each edge type's destination
}

// New builds a heterograph with the node types and counts of nodes and one
// relation per entry of relations (DGL's dgl.heterograph): relation t's
// graph must have nodes[t.Src] source and nodes[t.Dst] destination nodes.
// Node types with no relation are allowed. The graphs are shared, not
// copied. New returns an error naming the type at fault when a name is
// empty or holds a space or path separator, a count is negative or too
// large, a relation's graph is nil, one of its node types is not in nodes,
// or its sizes disagree with the counts.
func New(nodes map[string]int, relations map[EdgeType]*graph.Graph) (*Graph, error) {
	ntypes := make([]string, 0, len(nodes))
	for name, n := range nodes {
		if err := checkName("node type", name); err != nil {
			return nil, err
		}
		if n < 0 || n > graph.MaxNodes {
			return nil, fmt.Errorf("hetero: node type %q has %d nodes, want 0 to %d", name, n, graph.MaxNodes)
		}
		ntypes = append(ntypes, name)
	}
	slices.Sort(ntypes)
	etypes := make([]EdgeType, 0, len(relations))
	for t := range relations {
		etypes = append(etypes, t)
	}
	slices.SortFunc(etypes, EdgeType.Compare)

	h := &Graph{ntypes: ntypes, counts: make([]int, len(ntypes)), etypes: etypes,
		rels: make([]*graph.Graph, len(etypes)), src: make([]int, len(etypes)), dst: make([]int, len(etypes))}
	for i, name := range ntypes {
		h.counts[i] = nodes[name]
	}
	for i, t := range etypes {
		g := relations[t]
		if err := checkName("relation", t.Rel); err != nil {
			return nil, fmt.Errorf("%w in edge type %s", err, t)
		}
		if g == nil {
			return nil, fmt.Errorf("hetero: edge type %s has a nil graph", t)
		}
		s, ok := h.nodeTypeID(t.Src)
		if !ok {
			return nil, fmt.Errorf("hetero: edge type %s has source type %q, which is not a node type (have %s)", t, t.Src, h.typeList())
		}
		d, ok := h.nodeTypeID(t.Dst)
		if !ok {
			return nil, fmt.Errorf("hetero: edge type %s has destination type %q, which is not a node type (have %s)", t, t.Dst, h.typeList())
		}
		if g.NumSrc() != h.counts[s] || g.NumDst() != h.counts[d] {
			return nil, fmt.Errorf("hetero: edge type %s: graph has %d source and %d destination nodes but %q has %d nodes and %q %d",
				t, g.NumSrc(), g.NumDst(), t.Src, h.counts[s], t.Dst, h.counts[d])
		}
		h.rels[i], h.src[i], h.dst[i] = g, s, d
	}
	return h, nil
}

func (h *Graph) typeList() string { return strings.Join(h.ntypes, ", ") }

func (h *Graph) nodeTypeID(name string) (int, bool) {
	return slices.BinarySearch(h.ntypes, name)
}

// NodeTypes returns the node type names in type-ID order (a copy).
func (h *Graph) NodeTypes() []string { return slices.Clone(h.ntypes) }

// EdgeTypes returns the canonical edge types in type-ID order (a copy).
func (h *Graph) EdgeTypes() []EdgeType { return slices.Clone(h.etypes) }

// NumNodeTypes returns the number of node types.
func (h *Graph) NumNodeTypes() int { return len(h.ntypes) }

// NumEdgeTypes returns the number of canonical edge types.
func (h *Graph) NumEdgeTypes() int { return len(h.etypes) }

// NodeTypeID returns the ID of node type name, or an error listing the
// node types when there is none of that name.
func (h *Graph) NodeTypeID(name string) (int, error) {
	if i, ok := h.nodeTypeID(name); ok {
		return i, nil
	}
	return 0, fmt.Errorf("hetero: no node type %q (have %s)", name, h.typeList())
}

// EdgeTypeID returns the ID of edge type t, or an error when the graph has
// no such edge type.
func (h *Graph) EdgeTypeID(t EdgeType) (int, error) {
	if i, ok := slices.BinarySearchFunc(h.etypes, t, EdgeType.Compare); ok {
		return i, nil
	}
	return 0, fmt.Errorf("hetero: no edge type %s", t)
}

// CanonicalEdgeType returns the edge type whose relation is rel, or an
// error when there is none or several (then the caller must name the
// source and destination types).
func (h *Graph) CanonicalEdgeType(rel string) (EdgeType, error) {
	var found []EdgeType
	for _, t := range h.etypes {
		if t.Rel == rel {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return EdgeType{}, fmt.Errorf("hetero: no edge type has relation %q", rel)
	case 1:
		return found[0], nil
	}
	return EdgeType{}, fmt.Errorf("hetero: relation %q is ambiguous: %d edge types have it (%s and %s first)", rel, len(found), found[0], found[1])
}

// NumNodes returns the number of nodes of type ntype.
func (h *Graph) NumNodes(ntype string) (int, error) {
	i, err := h.NodeTypeID(ntype)
	if err != nil {
		return 0, err
	}
	return h.counts[i], nil
}

// NodeCount returns the number of nodes of the node type with ID i, which
// must be in [0, NumNodeTypes()).
func (h *Graph) NodeCount(i int) int { return h.counts[i] }

// TotalNodes returns the number of nodes of all types.
func (h *Graph) TotalNodes() int {
	n := 0
	for _, c := range h.counts {
		n += c
	}
	return n
}

// TotalEdges returns the number of edges of all types.
func (h *Graph) TotalEdges() int {
	n := 0
	for _, g := range h.rels {
		n += g.NumEdges()
	}
	return n
}

// Relation returns the graph of edge type t: its sources are the nodes of
// type t.Src, its destinations those of type t.Dst, its edge IDs the
// relation's.
func (h *Graph) Relation(t EdgeType) (*graph.Graph, error) {
	i, err := h.EdgeTypeID(t)
	if err != nil {
		return nil, err
	}
	return h.rels[i], nil
}

// RelationAt returns the graph of the edge type with ID i, which must be
// in [0, NumEdgeTypes()).
func (h *Graph) RelationAt(i int) *graph.Graph { return h.rels[i] }

// Endpoints returns the source and destination node type IDs of the edge
// type with ID i, which must be in [0, NumEdgeTypes()).
func (h *Graph) Endpoints(i int) (src, dst int) { return h.src[i], h.dst[i] }

// String describes the graph's types and sizes.
func (h *Graph) String() string {
	var b strings.Builder
	b.WriteString("hetero.Graph(")
	for i, n := range h.ntypes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", n, h.counts[i])
	}
	for i, t := range h.etypes {
		fmt.Fprintf(&b, "; %s=%d", t, h.rels[i].NumEdges())
	}
	b.WriteString(")")
	return b.String()
}

// spec returns the counts and relations New would rebuild h from.
func (h *Graph) spec() (map[string]int, map[EdgeType]*graph.Graph) {
	nodes := make(map[string]int, len(h.ntypes))
	for i, n := range h.ntypes {
		nodes[n] = h.counts[i]
	}
	rels := make(map[EdgeType]*graph.Graph, len(h.etypes))
	for i, t := range h.etypes {
		rels[t] = h.rels[i]
	}
	return nodes, rels
}
