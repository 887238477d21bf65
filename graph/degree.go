package graph

// InDegree returns the number of edges into destination node v. It returns 0
// for a node out of range; use HasDstNode to tell.
func (g *Graph) InDegree(v int) int {
	if v < 0 || v >= g.NumDst() {
		return 0
	}
	return g.CSC().Degree(v)
}

// OutDegree returns the number of edges out of source node u. It returns 0
// for a node out of range; use HasSrcNode to tell.
func (g *Graph) OutDegree(u int) int {
	if u < 0 || u >= g.NumSrc() {
		return 0
	}
	return g.CSR().Degree(u)
}

// InDegrees returns a new slice with the in-degree of every destination node.
func (g *Graph) InDegrees() []int64 { return degrees(g.CSC()) }

// OutDegrees returns a new slice with the out-degree of every source node.
func (g *Graph) OutDegrees() []int64 { return degrees(g.CSR()) }

func degrees(c *Compressed) []int64 {
	d := make([]int64, c.NumRows())
	for r := range d {
		d[r] = c.Indptr[r+1] - c.Indptr[r]
	}
	return d
}

// ZeroInDegree returns the destination nodes with no in-edges, in increasing
// order; layers that forbid them use it to build their error message.
func (g *Graph) ZeroInDegree() []int32 {
	c := g.CSC()
	var out []int32
	for r := range c.NumRows() {
		if c.Indptr[r] == c.Indptr[r+1] {
			out = append(out, int32(r))
		}
	}
	return out
}

// HasSrcNode reports whether u is a valid source node ID.
func (g *Graph) HasSrcNode(u int) bool { return u >= 0 && u < g.NumSrc() }

// HasDstNode reports whether v is a valid destination node ID.
func (g *Graph) HasDstNode(v int) bool { return v >= 0 && v < g.NumDst() }
