package graph

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// MaxNodes is the largest number of nodes on either side of a Graph: node IDs
// are stored as int32.
const MaxNodes = math.MaxInt32

// MaxEdges is the largest number of edges of a Graph: the CSR and CSC views
// store edge IDs as int32, which halves their size against int64.
const MaxEdges = math.MaxInt32

var lastID atomic.Uint64

func nextID() uint64 { return lastID.Add(1) }

// storage is the data shared by a graph and its reverse.
type storage struct {
	numSrc, numDst int
	src, dst       []int32

	bySrcOnce, byDstOnce sync.Once
	bySrc, byDst         *Compressed
}

// Graph is an immutable directed graph from NumSrc source nodes to NumDst
// destination nodes. The zero value is not usable; build graphs with FromCOO
// or the functions of this package.
type Graph struct {
	id  uint64
	s   *storage
	rev bool // when true, this graph is s with every edge reversed

	reverseOnce sync.Once
	reverse     *Graph
}

// FromCOO builds a graph with numSrc source and numDst destination nodes and
// one edge src[i] -> dst[i] per position i, which is the edge's ID.
//
// FromCOO copies src and dst, validating the copies, so the caller may
// reuse or change them afterwards: nothing a caller holds can make the
// graph's kernels read out of bounds. (Slices returned by the graph's
// accessors, such as COO, are the graph's own and must not be modified.) It
// returns an error when a size is negative or too large, the slices differ
// in length, or an ID is out of range.
func FromCOO(numSrc, numDst int, src, dst []int32) (*Graph, error) {
	if numSrc < 0 || numDst < 0 {
		return nil, fmt.Errorf("graph: negative node count (src %d, dst %d)", numSrc, numDst)
	}
	if numSrc > MaxNodes || numDst > MaxNodes {
		return nil, fmt.Errorf("graph: node count (src %d, dst %d) exceeds %d", numSrc, numDst, MaxNodes)
	}
	if len(src) != len(dst) {
		return nil, fmt.Errorf("graph: %d source IDs but %d destination IDs", len(src), len(dst))
	}
	if len(src) > MaxEdges {
		return nil, fmt.Errorf("graph: %d edges exceed MaxEdges (%d)", len(src), MaxEdges)
	}
	s, err := copyIDs(src, numSrc, "src", "source")
	if err != nil {
		return nil, err
	}
	d, err := copyIDs(dst, numDst, "dst", "destination")
	if err != nil {
		return nil, err
	}
	return newGraph(numSrc, numDst, s, d), nil
}

// newGraph wraps already validated COO lists.
func newGraph(numSrc, numDst int, src, dst []int32) *Graph {
	if src == nil {
		src, dst = []int32{}, []int32{}
	}
	return &Graph{id: nextID(), s: &storage{numSrc: numSrc, numDst: numDst, src: src, dst: dst}}
}

// copyIDs returns a copy of ids, reporting the first ID outside [0, n). It
// checks the copy, in one pass with the copying: what the graph keeps is
// what was checked, whatever happens to ids meanwhile.
func copyIDs(ids []int32, n int, field, side string) ([]int32, error) {
	out := make([]int32, len(ids))
	for e, v := range ids {
		if uint32(v) >= uint32(n) { // also catches v < 0, as n <= MaxInt32
			return nil, fmt.Errorf("graph: edge %d has %s %d but the graph has %d %s nodes", e, field, v, n, side)
		}
		out[e] = v
	}
	return out, nil
}

// ID returns the graph's process-unique identifier. A graph and its reverse
// have different IDs; Reverse called twice returns the same graph.
func (g *Graph) ID() uint64 { return g.id }

// NumSrc returns the number of source nodes.
func (g *Graph) NumSrc() int {
	if g.rev {
		return g.s.numDst
	}
	return g.s.numSrc
}

// NumDst returns the number of destination nodes.
func (g *Graph) NumDst() int {
	if g.rev {
		return g.s.numSrc
	}
	return g.s.numDst
}

// NumNodes returns the number of nodes of a homogeneous graph, and the larger
// of NumSrc and NumDst otherwise.
func (g *Graph) NumNodes() int { return max(g.s.numSrc, g.s.numDst) }

// Homogeneous reports whether sources and destinations are one node set
// (NumSrc == NumDst), as opposed to a bipartite graph or block.
func (g *Graph) Homogeneous() bool { return g.s.numSrc == g.s.numDst }

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return len(g.s.src) }

// COO returns the source and destination of every edge, indexed by edge ID.
// The slices are shared with the graph and must not be modified.
func (g *Graph) COO() (src, dst []int32) {
	if g.rev {
		return g.s.dst, g.s.src
	}
	return g.s.src, g.s.dst
}

// CSR returns the out-edge view: rows are source nodes, Indices hold
// destinations. It is built on first use.
func (g *Graph) CSR() *Compressed {
	if g.rev {
		return g.s.byDstView()
	}
	return g.s.bySrcView()
}

// CSC returns the in-edge view: rows are destination nodes, Indices hold
// sources. It is built on first use.
func (g *Graph) CSC() *Compressed {
	if g.rev {
		return g.s.bySrcView()
	}
	return g.s.byDstView()
}

func (s *storage) bySrcView() *Compressed {
	s.bySrcOnce.Do(func() { s.bySrc = compress(s.numSrc, s.src, s.dst) })
	return s.bySrc
}

func (s *storage) byDstView() *Compressed {
	s.byDstOnce.Do(func() { s.byDst = compress(s.numDst, s.dst, s.src) })
	return s.byDst
}

// Reverse returns the graph with every edge reversed, keeping edge IDs. It
// runs in O(1) and shares all storage, including views already built.
func (g *Graph) Reverse() *Graph {
	g.reverseOnce.Do(func() {
		g.reverse = &Graph{id: nextID(), s: g.s, rev: !g.rev}
		g.reverse.reverseOnce.Do(func() { g.reverse.reverse = g })
	})
	return g.reverse
}

// String describes the graph's size.
func (g *Graph) String() string {
	return fmt.Sprintf("Graph(id=%d, src=%d, dst=%d, edges=%d)", g.id, g.NumSrc(), g.NumDst(), g.NumEdges())
}
