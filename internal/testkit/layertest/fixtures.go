package layertest

import (
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// Fixture is a small test graph given by its edge list.
type Fixture struct {
	Name           string
	NumSrc, NumDst int
	Src, Dst       []int32
}

// Graph builds the fixture or fails the test.
func (f Fixture) Graph(t testing.TB) *graph.Graph {
	return gradcheck.Graph(t, f.NumSrc, f.NumDst, f.Src, f.Dst)
}

// Blocks are graphs for layers that take message-flow blocks: "homo" has
// self-loops (1 -> 1 twice, 2 -> 2), parallel edges (0 -> 4 twice) and node
// 0 without in-edges; "block" is bipartite with its 3 destinations first
// among its 6 sources.
var Blocks = []Fixture{
	{Name: "homo", NumSrc: 5, NumDst: 5, Src: []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 1}, Dst: []int32{1, 1, 2, 1, 3, 4, 4, 2, 3, 1}},
	{Name: "block", NumSrc: 6, NumDst: 3, Src: []int32{3, 4, 5, 0, 1, 2, 5, 4}, Dst: []int32{0, 0, 1, 1, 2, 2, 2, 0}},
}

// Edgeless are graphs without edges, homogeneous and a block.
var Edgeless = []Fixture{{Name: "homo", NumSrc: 4, NumDst: 4}, {Name: "block", NumSrc: 4, NumDst: 2}}
