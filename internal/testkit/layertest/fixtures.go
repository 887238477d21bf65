package layertest

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

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

// Adjacency returns the NumDst x NumSrc matrix whose entry (v, u) is the
// sum of the weights ew of the edges u -> v (1 each when ew is nil): the
// sum over in-edges as a dense operator, for references.
func (f Fixture) Adjacency(ew []float64) *mat.Dense {
	a := mat.NewDense(f.NumDst, f.NumSrc, nil)
	for e := range f.Src {
		w := 1.0
		if ew != nil {
			w = ew[e]
		}
		u, v := int(f.Src[e]), int(f.Dst[e])
		a.Set(v, u, a.At(v, u)+w)
	}
	return a
}

// Degrees returns the out-degree of every source and the in-degree of
// every destination, counted in edges.
func (f Fixture) Degrees() (out, in []float64) {
	out, in = make([]float64, f.NumSrc), make([]float64, f.NumDst)
	for e := range f.Src {
		out[f.Src[e]]++
		in[f.Dst[e]]++
	}
	return out, in
}

// SymIn returns D^-1/2 A D^-1/2 as a dense NumDst x NumSrc matrix, with A
// the Adjacency and D the in-degrees clamped to 1 on both sides (the source
// side reads the in-degree of the source node; homogeneous graphs only):
// the propagation of DGL's SGConv, TAGConv and ChebConv.
func (f Fixture) SymIn() *mat.Dense {
	_, din := f.Degrees()
	var s mat.Dense
	s.Apply(func(v, u int, w float64) float64 {
		return w / math.Sqrt(math.Max(din[v], 1)*math.Max(din[u], 1))
	}, f.Adjacency(nil))
	return &s
}
