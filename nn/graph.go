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
// such as dist/sar's). Layers check for Sharded once, while they build the
// expression graph, so the single-process path runs the same ops as before.
type Graph interface {
	NumSrc() int
	NumDst() int
	NumEdges() int
	// ZeroInDegree returns the destination nodes with no in-edges.
	ZeroInDegree() []int32
}

// Sharded is a Graph whose aggregations run across workers. NumSrc and
// NumDst are both the worker's node count; the methods build the
// distributed counterparts of the ops named in their comments.
type Sharded interface {
	Graph
	// NormalizedSum is ops.NormalizedSum on the whole graph, with global
	// degrees.
	NormalizedSum(x *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error)
	// GATAggregate is ops.UMulESum(g, z, Dropout(ops.GATAttention(g, el,
	// er, slope), drop)) on the whole graph, with the scores el and er
	// (N, H, 1) of z under the attention vectors al and ar (el[n,h] =
	// sum_f z[n,h,f] al[h,f]) computed inside: z is (N, H, F), al and ar
	// (H, F) or (1, H, F), and the result (N, H*F), the heads side by
	// side; the gradients go to z, al and ar. The attention dropout masks
	// are those of one process on the whole graph (drop.P 0: no dropout).
	// No attention tensor is returned.
	// ew, when not nil, holds a constant weight per local edge (EdgeIDs
	// order) multiplying the attention, as GATConv.ForwardWeighted.
	GATAggregate(z, al, ar, ew *gorgonia.Node, slope float64, drop DropoutSpec) (*gorgonia.Node, error)
	// NodeIDs returns the global IDs of the worker's nodes: row i of a
	// layer's input is node NodeIDs()[i] of the whole graph.
	NodeIDs() []int64
	// Reduce is ops.SpMM(g, ops.CopyLHS, red, x, nil) on the whole graph,
	// for every reducer (ties of Max and Min go to the smallest edge ID).
	Reduce(x *gorgonia.Node, red ops.Reducer) (*gorgonia.Node, error)
	// WeightedSum is NormalizedSum with a weight per edge multiplying
	// each message (ops.UMulESum between the degree scalings); ew has one
	// row per local edge, in EdgeIDs order, and is a constant: it gets no
	// gradient.
	WeightedSum(x, ew *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error)
	// EdgeIDs returns the global IDs of the edges into the worker's nodes,
	// in the order of the rows of an edge operand.
	EdgeIDs() []int64
	// InDegrees returns the in-degree, in the whole graph, of each of the
	// worker's nodes.
	InDegrees() []int64
	// OneShotBlock returns, when the graph fetches all remote rows at once
	// (plain domain-parallel training), the worker's in-edges as one
	// graph, in EdgeIDs order: its destinations are the worker's nodes,
	// its sources those nodes (first) followed by the remote sources. A
	// layer may then run its single-process ops on it, with its inputs
	// extended by Halo. It returns nil when aggregations run shard by
	// shard.
	OneShotBlock() (*graph.Graph, error)
	// Halo returns x, one row per worker node, followed by the rows of the
	// OneShotBlock's remote sources, fetched from their owners; its
	// gradient returns theirs. It is collective.
	Halo(x *gorgonia.Node) (*gorgonia.Node, error)
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

// NormalizedSum is ops.NormalizedSum on g, a *graph.Graph or a Sharded
// graph.
func NormalizedSum(g Graph, x *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error) {
	if s, ok := g.(Sharded); ok {
		return s.NormalizedSum(x, srcPower, dstPower)
	}
	pg, err := Local(g, "NormalizedSum")
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	return ops.NormalizedSum(pg, x, srcPower, dstPower)
}

// Aggregate reduces the messages x[u], each multiplied by its edge's weight
// in ew when ew is not nil, onto every destination of g with red:
// ops.SpMM(g, ops.CopyLHS or ops.Mul, red, x, ew) on a *graph.Graph, and
// the whole graph's on a Sharded one, where edge weights (constants, rows
// in EdgeIDs order) go with the sum and the mean only.
func Aggregate(g Graph, red ops.Reducer, x, ew *gorgonia.Node) (*gorgonia.Node, error) {
	if s, ok := g.(Sharded); ok {
		switch {
		case ew == nil:
			return s.Reduce(x, red)
		case red == ops.Sum:
			return s.WeightedSum(x, ew, 0, 0)
		case red == ops.Mean: // the weighted sum over the in-degree (0 without in-edges)
			return s.WeightedSum(x, ew, 0, -1)
		}
		return nil, fmt.Errorf("nn: the weighted %v aggregation is not supported on a sharded graph", red)
	}
	pg, err := Local(g, fmt.Sprintf("the %v aggregation", red))
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	if ew == nil {
		return ops.SpMM(pg, ops.CopyLHS, red, x, nil)
	}
	return ops.SpMM(pg, ops.Mul, red, x, ew)
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
