package partition

import (
	"math/rand/v2"
	"slices"
)

// coarsen contracts a matching of g: heavy-edge matching (each vertex, in
// random order, pairs with the unmatched neighbour it shares the heaviest
// edge with), then two-hop matching of what is left (unmatched vertices
// whose heaviest neighbour is the same are paired, as METIS does for the
// leaves of hubs, and isolated vertices are paired with each other). No
// pair may weigh more than maxVW. It returns the coarse graph and the coarse
// vertex of every vertex of g. scratch holds buffers reused from call to
// call, so that coarsening a large graph level after level does not
// allocate a full adjacency each time.
func coarsen(g *wgraph, rng *rand.Rand, maxVW int32, scratch *scratch) (*wgraph, []int32) {
	n := g.n()
	match := make([]int32, n)
	for i := range match {
		match[i] = -1
	}
	perm := rng.Perm(n)
	for _, vi := range perm {
		v := int32(vi)
		if match[v] >= 0 {
			continue
		}
		best, bw := int32(-1), int32(-1)
		for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
			u := g.adj[p]
			if match[u] < 0 && g.ew[p] > bw && g.vw[v]+g.vw[u] <= maxVW {
				best, bw = u, g.ew[p]
			}
		}
		if best >= 0 {
			match[v], match[best] = best, v
		}
	}
	// Two-hop matching keyed by the heaviest neighbour.
	pending := make([]int32, n)
	for i := range pending {
		pending[i] = -1
	}
	lonely := int32(-1)
	for _, vi := range perm {
		v := int32(vi)
		if match[v] >= 0 {
			continue
		}
		key := &lonely
		if g.xadj[v] < g.xadj[v+1] {
			h, hw := int32(-1), int32(-1)
			for p := g.xadj[v]; p < g.xadj[v+1]; p++ {
				if g.ew[p] > hw {
					h, hw = g.adj[p], g.ew[p]
				}
			}
			key = &pending[h]
		}
		if u := *key; u >= 0 && g.vw[u]+g.vw[v] <= maxVW {
			match[v], match[u] = u, v
			*key = -1
		} else {
			*key = v
		}
	}
	cmap := make([]int32, n)
	nc := int32(0)
	for v := range int32(n) {
		if match[v] < 0 {
			match[v] = v
		}
		if match[v] >= v {
			cmap[v] = nc
			cmap[match[v]] = nc
			nc++
		}
	}
	if cap(scratch.adj) < len(g.adj) {
		scratch.adj, scratch.ew = make([]int32, 0, len(g.adj)), make([]int32, 0, len(g.adj))
	}
	c := &wgraph{xadj: make([]int64, 1, nc+1), vw: make([]int32, nc), adj: scratch.adj[:0], ew: scratch.ew[:0]}
	pos := make([]int64, nc) // position of a coarse neighbour in the row being built, or -1
	for i := range pos {
		pos[i] = -1
	}
	for v := range int32(n) {
		if match[v] < v {
			continue
		}
		cv := cmap[v]
		start := int64(len(c.adj))
		members := [2]int32{v, match[v]}
		for i, m := range members {
			if i == 1 && m == v {
				break
			}
			c.vw[cv] += g.vw[m]
			for p := g.xadj[m]; p < g.xadj[m+1]; p++ {
				cu := cmap[g.adj[p]]
				if cu == cv {
					continue
				}
				if q := pos[cu]; q >= 0 {
					c.ew[q] += g.ew[p]
				} else {
					pos[cu] = int64(len(c.adj))
					c.adj = append(c.adj, cu)
					c.ew = append(c.ew, g.ew[p])
				}
			}
		}
		for _, cu := range c.adj[start:] {
			pos[cu] = -1
		}
		c.xadj = append(c.xadj, int64(len(c.adj)))
	}
	// Contraction drops the edges inside pairs and merges parallel ones:
	// copy out what is used, since every level stays alive until the
	// partition is projected back, and keep the scratch for the next level.
	c.adj, c.ew = slices.Clone(c.adj), slices.Clone(c.ew)
	if c.adj == nil {
		c.adj, c.ew = []int32{}, []int32{}
	}
	return c, cmap
}

// scratch is the buffers the partitioner reuses from level to level: the
// adjacency coarsen builds into, and the refinement heaps.
type scratch struct {
	adj, ew []int32
	heaps   [2]gainHeap
}
