package mp

import (
	"fmt"
	"maps"
	"slices"

	"gorgonia.org/gorgonia"
)

// UpdateAll sends a message along every edge, reduces the messages of
// every destination node, and applies apply (if not nil) to every
// destination node; the results are written to the destination-node data
// (DGL update_all). Messages are temporary: they are not stored on the
// edges.
//
// When msg and red are both builtins the scheduler runs a fused kernel
// where one exists (see the package documentation), so no message is stored
// per edge. A user-defined reduce function is called per degree bucket. A
// destination node without in-edges gets the frame's initial value instead
// of a reduce call. On a graph without edges nothing is sent: a builtin
// pair writes the initial value to every node, a user-defined reducer
// writes nothing, and apply still runs.
//
// UpdateAll returns an error, and leaves the frame unchanged, when a field
// is missing, shapes do not combine, or a user-defined function fails or
// returns fields of the wrong size.
func (f *Frame) UpdateAll(msg MessageFunc, red ReduceFunc, apply NodeFunc) error {
	return f.run("UpdateAll", newCompute(f, f.g, nil, nil), msg, red, apply)
}

// SendAndRecv is UpdateAll restricted to the edges eids (DGL
// send_and_recv): the destinations of those edges receive their messages
// along them only and are updated, apply runs on them only, and every other
// node keeps its fields. A field created here gets the initial value on the
// nodes not updated. Mailboxes hold the messages in increasing edge-ID
// order, whatever the order of eids. It returns an error naming the first
// entry of eids that is not an edge or repeats an earlier one; with no
// edges it does nothing.
func (f *Frame) SendAndRecv(eids []int64, msg MessageFunc, red ReduceFunc, apply NodeFunc) error {
	s, err := f.sortedEdges(eids, "eids")
	if err != nil {
		return fmt.Errorf("mp: SendAndRecv: %w", err)
	}
	if len(s) == 0 {
		return nil
	}
	c, err := f.recvCompute(s, nil)
	if err != nil {
		return fmt.Errorf("mp: SendAndRecv: %w", err)
	}
	return f.run("SendAndRecv", c, msg, red, apply)
}

// Pull updates the destination nodes nodes from all their in-edges (DGL
// pull): it is SendAndRecv on their in-edges, except that nodes among them
// without in-edges are updated too and get the initial value. The order of
// nodes does not matter. It returns an error naming the first entry that is
// not a destination node or repeats an earlier one; with no nodes it does
// nothing.
func (f *Frame) Pull(nodes []int32, msg MessageFunc, red ReduceFunc, apply NodeFunc) error {
	v, err := sortedNodes(nodes, f.g.NumDst(), "destination")
	if err != nil {
		return fmt.Errorf("mp: Pull: %w", err)
	}
	if len(v) == 0 {
		return nil
	}
	csc := f.g.CSC()
	var eids []int64
	for _, n := range v {
		lo, hi := csc.Row(int(n))
		eids = appendWide(eids, csc.EIDs[lo:hi])
	}
	sortEdges(eids)
	c, err := f.recvCompute(eids, v)
	if err != nil {
		return fmt.Errorf("mp: Pull: %w", err)
	}
	return f.run("Pull", c, msg, red, apply)
}

// Push sends messages along the out-edges of the source nodes nodes (DGL
// push): it is SendAndRecv on those edges. It returns an error naming the
// first entry that is not a source node or repeats an earlier one; when the
// nodes have no out-edges it does nothing.
func (f *Frame) Push(nodes []int32, msg MessageFunc, red ReduceFunc, apply NodeFunc) error {
	u, err := sortedNodes(nodes, f.g.NumSrc(), "source")
	if err != nil {
		return fmt.Errorf("mp: Push: %w", err)
	}
	csr := f.g.CSR()
	var eids []int64
	for _, n := range u {
		lo, hi := csr.Row(int(n))
		eids = appendWide(eids, csr.EIDs[lo:hi])
	}
	if len(eids) == 0 {
		return nil
	}
	sortEdges(eids)
	c, err := f.recvCompute(eids, nil)
	if err != nil {
		return fmt.Errorf("mp: Push: %w", err)
	}
	return f.run("Push", c, msg, red, apply)
}

// run passes messages on c and writes the results to the frame.
func (f *Frame) run(routine string, c *compute, msg MessageFunc, red ReduceFunc, apply NodeFunc) error {
	out, err := c.messagePassing(msg, red, apply)
	if err == nil {
		err = c.writeNodes(out)
	}
	if err != nil {
		return fmt.Errorf("mp: %s(%s, %s): %w", routine, describe(msg), describe(red), err)
	}
	return nil
}

// messagePassing computes the fields a message-passing routine writes, one
// row per destination it updates.
func (c *compute) messagePassing(msg MessageFunc, red ReduceFunc, apply NodeFunc) (Fields, error) {
	mb, mu, err := builtinMessage(msg)
	if err != nil {
		return nil, err
	}
	rb, ru, err := builtinReducer(red)
	if err != nil {
		return nil, err
	}
	out := Fields{}
	switch {
	case c.g.NumEdges() == 0:
		if mu == nil && ru == nil && c.numDst > 0 {
			if mb.Out != rb.Msg {
				return nil, fmt.Errorf("the reducer reads message %q but the message function writes %q", rb.Msg, mb.Out)
			}
			shape, err := c.messageShape(mb)
			if err != nil {
				return nil, err
			}
			like, err := c.operand(mb.LHS, mb.LHSField)
			if err != nil {
				return nil, err
			}
			out[rb.Out] = full(like, append([]int{c.numDst}, shape...), c.f.initial)
		}
	case mu == nil && ru == nil:
		x, err := c.builtinPair(mb, rb)
		if err != nil {
			return nil, err
		}
		out[rb.Out] = x
	default:
		var msgs Fields
		if mu == nil {
			x, err := c.builtinEdges(mb)
			if err != nil {
				return nil, err
			}
			msgs = Fields{mb.Out: x}
		} else if msgs, err = c.edgeUDF(mu); err != nil {
			return nil, err
		}
		if ru != nil {
			if out, err = c.reduceUDF(ru, msgs); err != nil {
				return nil, err
			}
			break
		}
		m, ok := msgs[rb.Msg]
		if !ok {
			return nil, fmt.Errorf("the reducer reads message %q, which the message function did not return%s", rb.Msg, have(sortedNames(msgs)))
		}
		x, err := c.reduceEdges(rb, m)
		if err != nil {
			return nil, err
		}
		out[rb.Out] = x
	}
	if apply == nil {
		return out, nil
	}
	return c.applyNodes(apply, out)
}

// edgeUDF runs a user-defined message or edge function on every edge of
// the compute graph.
func (c *compute) edgeUDF(fn EdgeFunc) (Fields, error) {
	out, err := fn(&EdgeBatch{c: c})
	if err != nil {
		return nil, fmt.Errorf("message function: %w", err)
	}
	if err := checkRows("the message function's result", out, c.g.NumEdges(), "edge"); err != nil {
		return nil, err
	}
	return out, nil
}

// applyNodes runs an apply function on every destination the routine
// updates, with the fields just computed hiding the frame's.
func (c *compute) applyNodes(fn NodeFunc, computed Fields) (Fields, error) {
	res, err := fn(&NodeBatch{c: c, over: computed})
	if err != nil {
		return nil, fmt.Errorf("apply function: %w", err)
	}
	if err := checkRows("the apply function's result", res, c.numDst, "updated node"); err != nil {
		return nil, err
	}
	out := Fields{}
	maps.Copy(out, computed)
	maps.Copy(out, res)
	return out, nil
}

// writeNodes stores fields computed for the destinations the routine
// updated: as they are when it updated all of them, merged into the
// existing fields otherwise. Nothing is written unless every field merges.
func (c *compute) writeNodes(out Fields) error {
	upd, err := c.merged(c.f.dst, out, c.dstIDs != nil, c.dstIdx, c.f.initial)
	if err != nil {
		return err
	}
	maps.Copy(c.f.dst.fields, upd)
	return nil
}

// merged returns the fields out, one row per updated element, as fields of
// d: unchanged when every element was updated (partial false), otherwise
// each assembled with the existing field's other rows, or fill where d has
// no such field yet.
func (c *compute) merged(d *Data, out Fields, partial bool, at *index, fill float64) (Fields, error) {
	if d.err != nil {
		return nil, d.err
	}
	upd := Fields{}
	for _, name := range sortedNames(out) {
		x := out[name]
		if !partial {
			upd[name] = x
			continue
		}
		old, ok := d.fields[name]
		var err error
		if !ok {
			x, err = assemble(d.rows, nil, []*gorgonia.Node{x}, []*index{at}, fill)
		} else if !slices.Equal(feature(old), feature(x)) || old.Dtype() != x.Dtype() {
			return nil, fmt.Errorf("field %q was computed with feature shape %v (%v) but %s data has %v (%v)",
				name, feature(x), x.Dtype(), d.what, feature(old), old.Dtype())
		} else {
			x, err = assemble(d.rows, old, []*gorgonia.Node{x}, []*index{at}, 0)
		}
		if err != nil {
			return nil, err
		}
		upd[name] = x
	}
	return upd, nil
}
