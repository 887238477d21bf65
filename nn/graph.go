package nn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// Graph is what a layer aggregates over: a *graph.Graph in one process, or
// one worker's share of a graph split across processes (a Sharded graph,
// such as dist/sar's). Layers build their aggregations with On, the one
// place that tells the two apart, so the single-process path runs the same
// ops as before.
type Graph interface {
	NumSrc() int
	NumDst() int
	NumEdges() int
	// ZeroInDegree returns the destination nodes with no in-edges.
	ZeroInDegree() []int32
}

// Sharded is a Graph whose aggregations run across workers. NumSrc and
// NumDst are both the worker's node count. A layer reaches it only through
// On (its aggregations) and the helpers of this package (DropoutOn,
// InDegrees), never by a type switch; a new aggregation is a new
// Aggregation type, which the sharded implementation adds to its Aggregate,
// not a new method here.
type Sharded interface {
	Graph
	// Aggregate builds the distributed counterpart of a's Local on the
	// whole graph, from the same inputs (edge operands hold one row per
	// local edge, in EdgeIDs order); an aggregation it does not implement
	// is an error naming it.
	Aggregate(a Aggregation, in ...*gorgonia.Node) (*gorgonia.Node, error)
	// NodeIDs returns the global IDs of the worker's nodes: row i of a
	// layer's input is node NodeIDs()[i] of the whole graph.
	NodeIDs() []int64
	// EdgeIDs returns the global IDs of the edges into the worker's nodes,
	// in the order of the rows of an edge operand.
	EdgeIDs() []int64
	// InDegrees returns the in-degree, in the whole graph, of each of the
	// worker's nodes.
	InDegrees() []int64
}

// DropoutSpec is a dropout site: probability P, seed and mode, as Dropout
// takes them.
type DropoutSpec struct {
	P    float64
	Seed uint64
	Mode *Mode
}

// DropoutOn is Dropout of x, which has one row per source node of g; on a
// Sharded graph the masks are those Dropout draws for the same rows of the
// whole graph in one process (DropoutRows with g's node IDs).
func DropoutOn(g Graph, x *gorgonia.Node, p float64, seed uint64, mode *Mode) (*gorgonia.Node, error) {
	if s, ok := g.(Sharded); ok {
		return DropoutRows(x, p, seed, mode, s.NodeIDs())
	}
	return Dropout(x, p, seed, mode)
}

// InDegrees returns the in-degree of each destination of g: of a
// *graph.Graph, or in the whole graph of a Sharded graph's nodes; what
// names the caller in the error for any other kind of graph.
func InDegrees(g Graph, what string) ([]int64, error) {
	if d, ok := g.(interface{ InDegrees() []int64 }); ok && !IsNil(g) {
		return d.InDegrees(), nil
	}
	return nil, fmt.Errorf("%s needs a *graph.Graph or an nn.Sharded graph, got %T", what, g)
}

// NormalizedSum is ops.NormalizedSum on g, a *graph.Graph or a Sharded
// graph.
func NormalizedSum(g Graph, x *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error) {
	return On(g, NormSum{Src: srcPower, Dst: dstPower}, x, nil)
}

// Aggregate reduces the messages x[u], each multiplied by its edge's weight
// in ew when ew is not nil, onto every destination of g with red:
// ops.SpMM(g, ops.CopyLHS or ops.Mul, red, x, ew) on a *graph.Graph, and
// the whole graph's on a Sharded one, where edge weights (constants, rows
// in EdgeIDs order) go with the sum and the mean only.
func Aggregate(g Graph, red ops.Reducer, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	return On(g, Reduction{Red: red}, x, ew)
}

// Local returns g as a *graph.Graph for what (a layer, or a feature of
// one) that has no sharded path: nil for a nil graph, which the layer's own
// check rejects, and an error for any other kind of graph.
func Local(g Graph, what string) (*graph.Graph, error) {
	switch g := g.(type) {
	case *graph.Graph:
		return g, nil
	case nil:
		return nil, nil
	case Sharded:
		return nil, fmt.Errorf("%s is not supported on a sharded graph (%T)", what, g)
	}
	return nil, fmt.Errorf("%s needs a *graph.Graph or an nn.Sharded graph, got %T", what, g)
}

// IsNil reports whether g is nil or a nil *graph.Graph.
func IsNil(g Graph) bool {
	pg, ok := g.(*graph.Graph)
	return g == nil || (ok && pg == nil)
}

// DstRows returns the rows of the destination nodes in x, which has one row
// per source node of g: x itself when g has as many destinations as
// sources, its first NumDst rows on a block (a bipartite graph whose
// destinations are its first sources, as sampling's). The row dimension is
// kept for a single destination (Gorgonia's Slice would drop it).
func DstRows(g Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	if g.NumSrc() == g.NumDst() {
		return x, nil
	}
	d, err := gorgonia.Slice(x, gorgonia.S(0, g.NumDst()))
	if err != nil || g.NumDst() != 1 {
		return d, err
	}
	return gorgonia.Reshape(d, append(tensor.Shape{1}, x.Shape()[1:]...))
}
