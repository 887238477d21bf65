package partition

import (
	"slices"

	"github.com/gnngo/gnn/graph"
)

// wgraph is an undirected graph with vertex and edge weights in CSR form, the
// input of the multilevel partitioner. Each undirected edge appears in both
// endpoints' rows; there are no self-loops and no repeated neighbours. Edge
// weights count original directed edges, so each weight (and the total) is at
// most graph.MaxEdges and fits an int32.
type wgraph struct {
	xadj []int64 // row r is adj[xadj[r]:xadj[r+1]]
	adj  []int32
	ew   []int32 // weight of adj[i]
	vw   []int32 // vertex weights
}

func (g *wgraph) n() int { return len(g.vw) }

func (g *wgraph) totalVW() int64 {
	var t int64
	for _, w := range g.vw {
		t += int64(w)
	}
	return t
}

// undirected folds a directed graph into a wgraph: u-v gets the number of
// edges u->v and v->u as its weight, self-loops are dropped, and every
// vertex weighs 1. Cutting u-v then cuts exactly that many directed edges.
func undirected(g *graph.Graph) *wgraph {
	n := g.NumNodes()
	src, dst := g.COO()
	deg := make([]int64, n+1)
	for e := range src {
		if u, v := src[e], dst[e]; u != v {
			deg[u+1]++
			deg[v+1]++
		}
	}
	for i := range n {
		deg[i+1] += deg[i]
	}
	adj := make([]int32, deg[n])
	fill := slices.Clone(deg[:n])
	for e := range src {
		if u, v := src[e], dst[e]; u != v {
			adj[fill[u]] = v
			fill[u]++
			adj[fill[v]] = u
			fill[v]++
		}
	}
	fill = nil
	// Sort each row and count its distinct neighbours, then merge repeated
	// neighbours into weights, compacting in place.
	xadj := make([]int64, n+1)
	for r := range n {
		row := adj[deg[r]:deg[r+1]]
		slices.Sort(row)
		d := int64(0)
		for i := range row {
			if i == 0 || row[i] != row[i-1] {
				d++
			}
		}
		xadj[r+1] = xadj[r] + d
	}
	m := xadj[n]
	ew := make([]int32, m)
	var out int64
	for r := range n {
		row := adj[deg[r]:deg[r+1]]
		for i := 0; i < len(row); {
			j := i + 1
			for j < len(row) && row[j] == row[i] {
				j++
			}
			adj[out], ew[out] = row[i], int32(j-i)
			out++
			i = j
		}
	}
	if m < int64(len(adj))*9/10 {
		adj = slices.Clone(adj[:m])
	}
	vw := make([]int32, n)
	for i := range vw {
		vw[i] = 1
	}
	return &wgraph{xadj: xadj, adj: adj[:m:m], ew: ew, vw: vw}
}

// induced returns the subgraph on the vertices v with side[v] == s, numbered
// in increasing order, and the original IDs of its vertices. Edges leaving
// the subgraph are dropped.
func (g *wgraph) induced(side []int8, s int8) (*wgraph, []int32) {
	local := make([]int32, g.n())
	var ids []int32
	for v, x := range side {
		if x == s {
			local[v] = int32(len(ids))
			ids = append(ids, int32(v))
		} else {
			local[v] = -1
		}
	}
	var m int64
	for _, v := range ids {
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if local[g.adj[p]] >= 0 {
				m++
			}
		}
	}
	sub := &wgraph{xadj: make([]int64, 1, len(ids)+1), vw: make([]int32, len(ids)),
		adj: make([]int32, 0, m), ew: make([]int32, 0, m)}
	for i, v := range ids {
		sub.vw[i] = g.vw[v]
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if u := local[g.adj[p]]; u >= 0 {
				sub.adj = append(sub.adj, u)
				sub.ew = append(sub.ew, g.ew[p])
			}
		}
		sub.xadj = append(sub.xadj, int64(len(sub.adj)))
	}
	return sub, ids
}

// cut returns the weight of the edges whose ends lie on different sides.
func (g *wgraph) cut(side []int8) int64 {
	var c int64
	for v := range g.n() {
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			if side[g.adj[p]] != side[v] {
				c += int64(g.ew[p])
			}
		}
	}
	return c / 2
}
