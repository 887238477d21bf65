package mp

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
)

// Frame binds feature data to a graph and runs message passing over it, as
// a DGLGraph does with its ndata, srcdata, dstdata and edata. Message
// passing reads source-node, destination-node and edge fields and writes
// destination-node fields; edge routines write edge fields.
//
// On a homogeneous frame sources and destinations are one node set: NodeData,
// SrcData and DstData are the same store. On a bipartite frame (a graph with
// NumSrc != NumDst, or one made by NewBipartiteFrame, such as a block) they
// are separate, and NodeData reports an error on every use.
//
// A Frame is not safe for concurrent use.
type Frame struct {
	g               *graph.Graph
	nodes, src, dst *Data
	edges           *Data
	initial         float64
	batching        Batching
}

// NewFrame returns an empty frame over g. When g has as many source as
// destination nodes it is homogeneous; otherwise bipartite. It returns an
// error when g is nil.
func NewFrame(g *graph.Graph) (*Frame, error) {
	if g == nil {
		return nil, fmt.Errorf("mp: NewFrame: nil graph")
	}
	if g.NumSrc() != g.NumDst() {
		return NewBipartiteFrame(g)
	}
	nodes := newData("node", g.NumSrc())
	return &Frame{g: g, nodes: nodes, src: nodes, dst: nodes, edges: newData("edge", g.NumEdges())}, nil
}

// NewBipartiteFrame returns an empty frame over g whose source and
// destination nodes hold separate data even when they are equally many, as
// on a message-flow block. It returns an error when g is nil.
func NewBipartiteFrame(g *graph.Graph) (*Frame, error) {
	if g == nil {
		return nil, fmt.Errorf("mp: NewBipartiteFrame: nil graph")
	}
	nodes := &Data{what: "node", err: fmt.Errorf(
		"node data is ambiguous on a bipartite frame (%d source, %d destination nodes); use SrcData or DstData",
		g.NumSrc(), g.NumDst())}
	return &Frame{
		g:     g,
		nodes: nodes,
		src:   newData("source node", g.NumSrc()),
		dst:   newData("destination node", g.NumDst()),
		edges: newData("edge", g.NumEdges()),
	}, nil
}

// Graph returns the frame's graph.
func (f *Frame) Graph() *graph.Graph { return f.g }

// Bipartite reports whether source and destination nodes hold separate
// data.
func (f *Frame) Bipartite() bool { return f.src != f.dst }

// NodeData returns the node fields of a homogeneous frame (DGL ndata).
func (f *Frame) NodeData() *Data { return f.nodes }

// SrcData returns the source-node fields (DGL srcdata): what u operands
// and EdgeBatch.Src read.
func (f *Frame) SrcData() *Data { return f.src }

// DstData returns the destination-node fields (DGL dstdata): what v
// operands and NodeBatch.Data read, and where message passing writes.
func (f *Frame) DstData() *Data { return f.dst }

// EdgeData returns the edge fields (DGL edata), one row per edge ID.
func (f *Frame) EdgeData() *Data { return f.edges }

// SetInitial sets the value that message passing gives a node which
// receives no message, for every field a reducer writes (DGL's node
// initializer); it also fills the rows of a node field that a partial
// routine creates but does not compute. It is 0 unless set.
func (f *Frame) SetInitial(v float64) { f.initial = v }

// Initial returns the value set by SetInitial.
func (f *Frame) Initial() float64 { return f.initial }

// Local calls fn with a copy of the frame: fields that fn sets or deletes
// on the copy, and settings it changes, disappear when fn returns (DGL's
// local_scope). Local returns fn's error.
func (f *Frame) Local(fn func(*Frame) error) error {
	c := *f
	c.edges = f.edges.clone()
	if f.Bipartite() {
		c.src, c.dst = f.src.clone(), f.dst.clone()
	} else {
		c.nodes = f.nodes.clone()
		c.src, c.dst = c.nodes, c.nodes
	}
	c.batching.Bounds = append([]int(nil), f.batching.Bounds...)
	return fn(&c)
}
