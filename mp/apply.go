package mp

import (
	"fmt"
	"maps"

	"github.com/gnngo/gnn/graph"
)

// ApplyEdges computes fields on every edge and stores them in the edge data
// (DGL apply_edges). fn is a builtin message, computed by ops.SDDMM (copy_e
// only renames the field), or an EdgeFunc. It returns an error, and leaves
// the frame unchanged, when a field is missing, shapes do not combine, or fn
// fails or returns fields of the wrong size. On a graph without edges it
// does nothing.
func (f *Frame) ApplyEdges(fn MessageFunc) error {
	return f.applyEdges("ApplyEdges", newCompute(f, f.g, nil, nil), fn)
}

// ApplyEdgesOn is ApplyEdges on the edges eids only; the other edges keep
// their fields, and get 0 in a field created here. The function sees the
// edges in increasing edge-ID order. It returns an error naming the first
// entry of eids that is not an edge or repeats an earlier one; with no
// edges it does nothing.
func (f *Frame) ApplyEdgesOn(eids []int64, fn MessageFunc) error {
	s, err := f.sortedEdges(eids, "eids")
	if err != nil {
		return fmt.Errorf("mp: ApplyEdgesOn: %w", err)
	}
	if len(s) == 0 {
		return nil
	}
	src, dst := f.g.COO()
	cs, cd := make([]int32, len(s)), make([]int32, len(s))
	for i, e := range s {
		cs[i], cd[i] = src[e], dst[e]
	}
	cg, err := graph.FromCOO(f.g.NumSrc(), f.g.NumDst(), cs, cd)
	if err != nil {
		return fmt.Errorf("mp: ApplyEdgesOn: %w", err)
	}
	return f.applyEdges("ApplyEdgesOn", newCompute(f, cg, nil, s), fn)
}

func (f *Frame) applyEdges(routine string, c *compute, fn MessageFunc) error {
	err := func() error {
		mb, mu, err := builtinMessage(fn)
		if err != nil || c.g.NumEdges() == 0 {
			return err
		}
		out := Fields{}
		if mu != nil {
			if out, err = c.edgeUDF(mu); err != nil {
				return err
			}
		} else {
			x, err := c.builtinEdges(mb)
			if err != nil {
				return err
			}
			out[mb.Out] = x
		}
		upd, err := c.merged(f.edges, out, c.eids != nil, c.eidIdx, 0)
		if err != nil {
			return err
		}
		maps.Copy(f.edges.fields, upd)
		return nil
	}()
	if err != nil {
		return fmt.Errorf("mp: %s(%s): %w", routine, describe(fn), err)
	}
	return nil
}

// ApplyNodes computes fields on every destination node, the nodes of a
// homogeneous frame, and stores them in the destination-node data (DGL
// apply_nodes). fn gets one batch of all the nodes, whose Data returns the
// frame's fields as they are. It returns an error, and leaves the frame
// unchanged, when fn is nil, fails, or returns fields of the wrong size.
func (f *Frame) ApplyNodes(fn NodeFunc) error {
	return f.applyNodes("ApplyNodes", newCompute(f, f.g, nil, nil), fn)
}

// ApplyNodesOn is ApplyNodes on the destination nodes nodes only, in
// increasing ID order whatever the order of nodes; the other nodes keep
// their fields, and get the initial value in a field created here. It
// returns an error naming the first entry that is not a destination node or
// repeats an earlier one; with no nodes it does nothing.
func (f *Frame) ApplyNodesOn(nodes []int32, fn NodeFunc) error {
	v, err := sortedNodes(nodes, f.g.NumDst(), "destination")
	if err != nil {
		return fmt.Errorf("mp: ApplyNodesOn: %w", err)
	}
	if len(v) == 0 {
		return nil
	}
	return f.applyNodes("ApplyNodesOn", newCompute(f, f.g, v, nil), fn)
}

func (f *Frame) applyNodes(routine string, c *compute, fn NodeFunc) error {
	err := func() error {
		if fn == nil {
			return fmt.Errorf("nil node function")
		}
		out, err := c.applyNodes(fn, nil)
		if err != nil {
			return err
		}
		return c.writeNodes(out)
	}()
	if err != nil {
		return fmt.Errorf("mp: %s: %w", routine, err)
	}
	return nil
}
