package mp

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// compute is the graph one routine runs on, with the maps from its nodes
// and edges back to the frame's. Whole-graph routines run on the frame's
// graph with identity maps; partial ones on a graph of the selected edges
// that keeps every source node and renumbers the destination nodes it
// updates.
type compute struct {
	f      *Frame
	g      *graph.Graph
	numDst int     // destination nodes the routine updates: rows of its results
	dstIDs []int32 // compute destination -> frame destination; nil: identity
	eids   []int64 // compute edge -> frame edge; nil: identity

	dstIdx, eidIdx *index
	cache          map[string]*gorgonia.Node // gathered fields, by side and name
	zeroDeg        *index                    // destinations without in-edges
}

func newCompute(f *Frame, g *graph.Graph, dstIDs []int32, eids []int64) *compute {
	c := &compute{f: f, g: g, numDst: g.NumDst(), dstIDs: dstIDs, eids: eids, cache: map[string]*gorgonia.Node{}}
	if dstIDs != nil {
		c.numDst = len(dstIDs)
		c.dstIdx = newIndex(widen32(dstIDs), true)
	}
	if eids != nil {
		c.eidIdx = newIndex(eids, true)
	}
	return c
}

// src returns a source-node field: one row per source node of the compute
// graph, which are the frame's.
func (c *compute) src(name string) (*gorgonia.Node, error) { return c.f.src.lookup(name) }

// dst returns a destination-node field, one row per destination the
// routine updates.
func (c *compute) dst(name string) (*gorgonia.Node, error) {
	x, err := c.f.dst.lookup(name)
	if err != nil || c.dstIDs == nil {
		return x, err
	}
	return c.cached("v:"+name, func() (*gorgonia.Node, error) {
		return gather(x, c.dstIdx, []int{len(c.dstIDs)}, 0)
	})
}

// edge returns an edge field, one row per edge of the compute graph.
func (c *compute) edge(name string) (*gorgonia.Node, error) {
	x, err := c.f.edges.lookup(name)
	if err != nil || c.eids == nil {
		return x, err
	}
	return c.cached("e:"+name, func() (*gorgonia.Node, error) {
		return gather(x, c.eidIdx, []int{len(c.eids)}, 0)
	})
}

// operand returns the field of an operand at target t.
func (c *compute) operand(t ops.Target, name string) (*gorgonia.Node, error) {
	switch t {
	case ops.U:
		return c.src(name)
	case ops.V:
		return c.dst(name)
	}
	return c.edge(name)
}

// perEdge returns field name of operand t with one row per edge: the
// source or destination row of every edge (an SDDMM copy, whose gradient is
// a copy_e SpMM), or the edge field itself.
func (c *compute) perEdge(t ops.Target, name string) (*gorgonia.Node, error) {
	x, err := c.operand(t, name)
	if err != nil || t == ops.E {
		return x, err
	}
	return c.cached(t.String()+"/e:"+name, func() (*gorgonia.Node, error) {
		return ops.SDDMM(c.g, ops.CopyLHS, x, t, nil, t)
	})
}

func (c *compute) cached(key string, build func() (*gorgonia.Node, error)) (*gorgonia.Node, error) {
	if x, ok := c.cache[key]; ok {
		return x, nil
	}
	x, err := build()
	if err == nil {
		c.cache[key] = x
	}
	return x, err
}

// frameDst returns the frame ID of compute destination v.
func (c *compute) frameDst(v int32) int32 {
	if c.dstIDs == nil {
		return v
	}
	return c.dstIDs[v]
}

// frameEdge returns the frame ID of compute edge e.
func (c *compute) frameEdge(e int64) int64 {
	if c.eids == nil {
		return e
	}
	return c.eids[e]
}

// withInitial gives the destinations without in-edges the frame's initial
// value, where a kernel gave them 0.
func (c *compute) withInitial(x *gorgonia.Node) (*gorgonia.Node, error) {
	if c.f.initial == 0 {
		return x, nil
	}
	if c.zeroDeg == nil {
		var rows []int64
		csc := c.g.CSC()
		for v := range c.g.NumDst() {
			if csc.Degree(v) == 0 {
				rows = append(rows, int64(v))
			}
		}
		c.zeroDeg = newIndex(rows, true)
	}
	if len(c.zeroDeg.rows) == 0 {
		return x, nil
	}
	return fillRows(x, c.zeroDeg, c.f.initial)
}

// checkRows validates the fields a user-defined function returned (where
// names the result in errors): each has rows rows of kind, and a float
// dtype.
func checkRows(where string, out Fields, rows int, kind string) error {
	for _, name := range sortedNames(out) {
		if err := checkField(where, rows, kind, name, out[name]); err != nil {
			return err
		}
	}
	return nil
}

func sortedNames(f Fields) []string {
	return (&Data{fields: f}).Names()
}

// widen32 returns x as int64 IDs.
func widen32(x []int32) []int64 { return appendWide(make([]int64, 0, len(x)), x) }

// appendWide appends the int32 IDs x, widened, to out.
func appendWide(out []int64, x []int32) []int64 {
	for _, v := range x {
		out = append(out, int64(v))
	}
	return out
}
