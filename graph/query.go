package graph

import "fmt"

// Successors returns the destination of every out-edge of source node u, in
// increasing edge-ID order: a node reached by several parallel edges appears
// once per edge, as in DGL. The slice is a view into the CSR view and must not
// be modified. It returns an error when u is not a source node.
func (g *Graph) Successors(u int) ([]int32, error) {
	if err := g.checkSrc(u); err != nil {
		return nil, err
	}
	c := g.CSR()
	lo, hi := c.Row(u)
	return c.Indices[lo:hi:hi], nil
}

// Predecessors returns the source of every in-edge of destination node v, in
// increasing edge-ID order, once per edge. The slice is a view into the CSC
// view and must not be modified. It returns an error when v is not a
// destination node.
func (g *Graph) Predecessors(v int) ([]int32, error) {
	if err := g.checkDst(v); err != nil {
		return nil, err
	}
	c := g.CSC()
	lo, hi := c.Row(v)
	return c.Indices[lo:hi:hi], nil
}

// OutEdges returns the IDs of the edges out of source node u, in increasing
// order; position i matches Successors(u)[i]. The slice is the caller's. It
// returns an error when u is not a source node.
func (g *Graph) OutEdges(u int) ([]int64, error) {
	if err := g.checkSrc(u); err != nil {
		return nil, err
	}
	c := g.CSR()
	lo, hi := c.Row(u)
	return widen(c.EIDs[lo:hi]), nil
}

// InEdges returns the IDs of the edges into destination node v, in
// increasing order; position i matches Predecessors(v)[i]. The slice is the
// caller's. It returns an error when v is not a destination node.
func (g *Graph) InEdges(v int) ([]int64, error) {
	if err := g.checkDst(v); err != nil {
		return nil, err
	}
	c := g.CSC()
	lo, hi := c.Row(v)
	return widen(c.EIDs[lo:hi]), nil
}

// HasEdgeBetween reports whether the graph has an edge from source node u to
// destination node v (DGL has_edges_between). It scans the shorter of u's
// out-edges and v's in-edges, so it costs O(min(OutDegree(u), InDegree(v)))
// once both views are built; the first call builds them. It returns an error
// when u or v is out of range.
func (g *Graph) HasEdgeBetween(u, v int) (bool, error) {
	c, lo, hi, other, err := g.between(u, v)
	if err != nil {
		return false, err
	}
	for _, w := range c.Indices[lo:hi] {
		if w == other {
			return true, nil
		}
	}
	return false, nil
}

// EdgesBetween returns the IDs of all edges from source node u to
// destination node v, in increasing order, like DGL's edge_ids on a
// multigraph: one entry per parallel edge, and an empty, non-nil slice when
// there is none. It costs what HasEdgeBetween does, and the slice is newly
// allocated. It returns an error when u or v is out of range.
//
// The name is not EdgeIDs because Subgraph's EdgeIDs field would hide it.
func (g *Graph) EdgesBetween(u, v int) ([]int64, error) {
	c, lo, hi, other, err := g.between(u, v)
	if err != nil {
		return nil, err
	}
	out := []int64{}
	for p := lo; p < hi; p++ {
		if c.Indices[p] == other {
			out = append(out, int64(c.EIDs[p]))
		}
	}
	return out, nil
}

// between validates u and v and returns the shorter of u's CSR row and v's
// CSC row, with the endpoint to look for in it.
func (g *Graph) between(u, v int) (c *Compressed, lo, hi int64, other int32, err error) {
	if err := g.checkSrc(u); err != nil {
		return nil, 0, 0, 0, err
	}
	if err := g.checkDst(v); err != nil {
		return nil, 0, 0, 0, err
	}
	out, in := g.CSR(), g.CSC()
	if in.Degree(v) < out.Degree(u) {
		lo, hi = in.Row(v)
		return in, lo, hi, int32(u), nil
	}
	lo, hi = out.Row(u)
	return out, lo, hi, int32(v), nil
}

// FindEdges returns the source and destination of each edge in eids (DGL
// find_edges): src[i] -> dst[i] is edge eids[i]. The slices are newly
// allocated. It returns an error naming the first position whose ID is not an
// edge of the graph.
func (g *Graph) FindEdges(eids []int64) (src, dst []int32, err error) {
	if err := g.checkEIDs(eids, "eids"); err != nil {
		return nil, nil, err
	}
	s, d := g.COO()
	src = make([]int32, len(eids))
	dst = make([]int32, len(eids))
	for i, e := range eids {
		src[i], dst[i] = s[e], d[e]
	}
	return src, dst, nil
}

func (g *Graph) checkSrc(u int) error {
	if !g.HasSrcNode(u) {
		return fmt.Errorf("graph: source node %d out of range [0, %d)", u, g.NumSrc())
	}
	return nil
}

func (g *Graph) checkDst(v int) error {
	if !g.HasDstNode(v) {
		return fmt.Errorf("graph: destination node %d out of range [0, %d)", v, g.NumDst())
	}
	return nil
}

// checkEIDs reports the first entry of eids that is not an edge ID; name is
// the argument's name in the message.
func (g *Graph) checkEIDs(eids []int64, name string) error {
	n := int64(g.NumEdges())
	for i, e := range eids {
		if e < 0 || e >= n {
			return fmt.Errorf("graph: %s[%d] = %d but the graph has %d edges", name, i, e, n)
		}
	}
	return nil
}

// widen returns the edge IDs of a view as the int64 IDs of the API.
func widen(ids []int32) []int64 {
	out := make([]int64, len(ids))
	for i, e := range ids {
		out[i] = int64(e)
	}
	return out
}
