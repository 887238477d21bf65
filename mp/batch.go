package mp

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/ops"
)

// EdgeBatch is the input of an EdgeFunc: a set of edges, with the fields of
// their endpoints and of the edges themselves. Fields are gathered when
// asked for, once each, with one row per edge of the batch in increasing
// edge-ID order; a batch is only meant to be used during the call.
type EdgeBatch struct {
	c *compute
}

// Src returns source-node field name gathered onto the edges: row i is the
// field's row of the source of edge i. The gather's gradient is a
// scatter-add onto the source nodes (a copy_e SpMM on the reversed graph).
func (b *EdgeBatch) Src(name string) (*gorgonia.Node, error) { return b.perEdge(ops.U, name) }

// Dst returns destination-node field name gathered onto the edges.
func (b *EdgeBatch) Dst(name string) (*gorgonia.Node, error) { return b.perEdge(ops.V, name) }

// Data returns edge field name, one row per edge of the batch.
func (b *EdgeBatch) Data(name string) (*gorgonia.Node, error) { return b.perEdge(ops.E, name) }

func (b *EdgeBatch) perEdge(t ops.Target, name string) (*gorgonia.Node, error) {
	x, err := b.c.perEdge(t, name)
	if err != nil {
		return nil, fmt.Errorf("mp: %w", err)
	}
	return x, nil
}

// NumEdges returns the number of edges in the batch: the rows of every
// field it gives and of every field the function must return.
func (b *EdgeBatch) NumEdges() int { return b.c.g.NumEdges() }

// EdgeIDs returns the frame's IDs of the batch's edges, in row order, in a
// new slice.
func (b *EdgeBatch) EdgeIDs() []int64 {
	out := make([]int64, b.NumEdges())
	for i := range out {
		out[i] = b.c.frameEdge(int64(i))
	}
	return out
}

// Endpoints returns the source and destination node of every edge of the
// batch, in row order and in the frame's node IDs, in new slices.
func (b *EdgeBatch) Endpoints() (src, dst []int32) {
	s, d := b.c.g.COO()
	src = append([]int32(nil), s...)
	dst = make([]int32, len(d))
	for i, v := range d {
		dst[i] = b.c.frameDst(v)
	}
	return src, dst
}

// NodeBatch is the input of a NodeFunc: a set of destination nodes with
// their fields and, for a reduce function, their incoming messages.
//
// A reduce function is called once per bucket. With degree bucketing (the
// default) a bucket holds every node of one in-degree d and its mailbox
// holds their d messages each, in increasing edge-ID order. With degree
// padding a bucket holds nodes of a range of in-degrees, and mailboxes are
// padded to the largest with the padding value. An apply function gets one
// batch of every node the routine updated, and no mailbox.
type NodeBatch struct {
	c       *compute
	nodes   []int32 // compute destinations, in row order; nil: all, in order
	sel     *index  // frame destinations of nodes, for gathers
	degree  int     // mailbox length
	degrees []int   // in-degree of every node; nil outside a reduce
	mail    Fields  // messages, one row per compute edge; nil outside a reduce
	mailIdx *index  // len(nodes)*degree compute edge IDs, -1 for padding
	pad     float64
	over    Fields // fields that hide the frame's (a reducer's results)
	cache   map[string]*gorgonia.Node
	groups  map[string]*rowGroup // shared by the buckets of one reduce
}

// NumNodes returns the number of nodes in the batch: the rows of every
// field it gives and of every field the function must return.
func (b *NodeBatch) NumNodes() int {
	if b.nodes == nil {
		return b.c.numDst
	}
	return len(b.nodes)
}

// Nodes returns the frame's IDs of the batch's nodes, in row order, in a
// new slice.
func (b *NodeBatch) Nodes() []int32 {
	out := make([]int32, b.NumNodes())
	for i := range out {
		v := int32(i)
		if b.nodes != nil {
			v = b.nodes[i]
		}
		out[i] = b.c.frameDst(v)
	}
	return out
}

// Degree returns the length of the batch's mailboxes: the in-degree of its
// nodes, or with degree padding the largest in-degree among them. It is 0
// outside a reduce function.
func (b *NodeBatch) Degree() int { return b.degree }

// InDegrees returns the number of messages each node of the batch
// received, in a new slice; with degree padding the rest of its mailbox
// row is padding. It is nil outside a reduce function.
func (b *NodeBatch) InDegrees() []int {
	if b.degrees == nil {
		return nil
	}
	return append([]int(nil), b.degrees...)
}

// Data returns destination-node field name for the batch's nodes, one row
// per node. In an apply function the fields the reducer just computed hide
// the frame's.
func (b *NodeBatch) Data(name string) (*gorgonia.Node, error) {
	if x, ok := b.over[name]; ok {
		return x, nil
	}
	if b.nodes == nil {
		x, err := b.c.dst(name)
		if err != nil {
			return nil, fmt.Errorf("mp: %w", err)
		}
		return x, nil
	}
	x, err := b.c.f.dst.lookup(name)
	if err != nil {
		return nil, fmt.Errorf("mp: %w", err)
	}
	return b.cached("v:"+name, func() (*gorgonia.Node, error) {
		if b.sel == nil {
			rows := make([]int64, len(b.nodes))
			for i, v := range b.nodes {
				rows[i] = int64(b.c.frameDst(v))
			}
			b.sel = newIndex(rows, true)
		}
		grp, err := b.group("v:"+name, x)
		if err != nil {
			return nil, err
		}
		return grp.gather(b.sel, []int{len(b.nodes)}, 0)
	})
}

// Mailbox returns the messages name received by the batch's nodes, shaped
// (nodes, degree, features...): row i, column j is the j-th incoming
// message of node i in increasing edge-ID order. The gather's gradient flows
// back to the messages. Mailbox reports an error outside a reduce function.
func (b *NodeBatch) Mailbox(name string) (*gorgonia.Node, error) {
	if b.mail == nil {
		return nil, fmt.Errorf("mp: no mailbox: NodeBatch.Mailbox is for reduce functions")
	}
	m, ok := b.mail[name]
	if !ok {
		return nil, fmt.Errorf("mp: mailbox has no message %q%s", name, have(sortedNames(b.mail)))
	}
	return b.cached("m:"+name, func() (*gorgonia.Node, error) {
		grp, err := b.group("m:"+name, m)
		if err != nil {
			return nil, err
		}
		return grp.gather(b.mailIdx, []int{len(b.nodes), b.degree}, b.pad)
	})
}

// group returns the row group of x shared by the buckets of a reduce, under
// key.
func (b *NodeBatch) group(key string, x *gorgonia.Node) (*rowGroup, error) {
	if grp, ok := b.groups[key]; ok {
		return grp, nil
	}
	grp, err := newRowGroup(x)
	if err != nil {
		return nil, err
	}
	b.groups[key] = grp
	return grp, nil
}

func (b *NodeBatch) cached(key string, build func() (*gorgonia.Node, error)) (*gorgonia.Node, error) {
	if b.cache == nil {
		b.cache = map[string]*gorgonia.Node{}
	}
	if x, ok := b.cache[key]; ok {
		return x, nil
	}
	x, err := build()
	if err != nil {
		return nil, err
	}
	b.cache[key] = x
	return x, nil
}
