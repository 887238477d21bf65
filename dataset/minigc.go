package dataset

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/gnngo/gnn/graph"
)

// MiniGCConfig configures MiniGC. Start from DefaultMiniGCConfig and change
// fields: every field is used as given.
type MiniGCConfig struct {
	// Graphs is the number of graphs, at least 1; graph i has class i mod 8.
	Graphs int

	// MinNodes and MaxNodes bound the node count n each graph is drawn
	// with, uniformly in [MinNodes, MaxNodes], 10 <= MinNodes <= MaxNodes
	// <= 1000. Below 10 nodes two classes would share graphs (the
	// 8-node hypercube is the 8-node circular ladder).
	MinNodes, MaxNodes int

	// Val and Test are the numbers of validation and test graphs; the rest
	// are training graphs (see GraphDataset.SplitRandom).
	Val, Test int

	// Seed selects the graphs and the split.
	Seed uint64
}

// DefaultMiniGCConfig returns 1000 graphs of 10 to 20 nodes, split into 600
// training, 200 validation and 200 test graphs.
func DefaultMiniGCConfig() MiniGCConfig {
	return MiniGCConfig{Graphs: 1000, MinNodes: 10, MaxNodes: 20, Val: 200, Test: 200, Seed: 1}
}

// MiniGCClasses names the classes of MiniGC, in class order.
var MiniGCClasses = []string{"cycle", "star", "wheel", "lollipop", "hypercube", "grid", "clique", "circular ladder"}

// MiniGC generates a graph-classification dataset named "minigc" whose
// class is the family a graph's structure belongs to, after DGL's
// MiniGCDataset: for a node count n drawn for each graph,
//
//   - cycle: the n-cycle;
//   - star: node 0 joined to n-1 leaves;
//   - wheel: node 0 joined to every node of an (n-1)-cycle;
//   - lollipop: a clique of n-p nodes and a path of p nodes, p uniform in
//     [1, n/2], joined by one edge;
//   - hypercube: the d-cube on 2^d nodes, d = floor(log2 n);
//   - grid: the h x w grid, h uniform in [2, n/2] and w = n/h (floor);
//   - clique: the complete graph on n nodes;
//   - circular ladder: two (n/2)-cycles joined node by node.
//
// Graphs are symmetric (every edge in both directions), simple and without
// self-loops; edges are listed in increasing (source, destination) order.
// They carry no node labels or features: the structure is all there is to
// learn, and a graph isomorphism network separates the classes. The
// dataset depends only on cfg. It returns an error for a configuration
// outside the ranges documented on MiniGCConfig.
func MiniGC(cfg MiniGCConfig) (*GraphDataset, error) {
	switch {
	case cfg.Graphs < 1:
		return nil, fmt.Errorf("dataset: minigc: %d graphs, want at least 1", cfg.Graphs)
	case cfg.MinNodes < 10 || cfg.MaxNodes < cfg.MinNodes || cfg.MaxNodes > 1000:
		return nil, fmt.Errorf("dataset: minigc: node counts [%d, %d], want 10 <= min <= max <= 1000", cfg.MinNodes, cfg.MaxNodes)
	}
	rng := newStream(cfg.Seed, streamEdges)
	ds := &GraphDataset{
		Name:       "minigc",
		Graphs:     make([]*graph.Graph, cfg.Graphs),
		Labels:     make([]int32, cfg.Graphs),
		NumClasses: len(MiniGCClasses),
		ClassNames: slices.Clone(MiniGCClasses),
	}
	for i := range ds.Graphs {
		c := i % len(MiniGCClasses)
		n := cfg.MinNodes + rng.IntN(cfg.MaxNodes-cfg.MinNodes+1)
		var e [][2]int32
		switch c {
		case 0:
			e = cycle(0, n)
		case 1:
			for v := 1; v < n; v++ {
				e = append(e, [2]int32{0, int32(v)})
			}
		case 2:
			e = cycle(1, n-1)
			for v := 1; v < n; v++ {
				e = append(e, [2]int32{0, int32(v)})
			}
		case 3:
			m := n - 1 - rng.IntN(n/2)
			e = clique(m)
			for v := m; v < n; v++ {
				e = append(e, [2]int32{int32(v - 1), int32(v)})
			}
		case 4:
			d := bits.Len(uint(n)) - 1
			n = 1 << d
			for u := range n {
				for k := range d {
					if w := u ^ 1<<k; u < w {
						e = append(e, [2]int32{int32(u), int32(w)})
					}
				}
			}
		case 5:
			h := 2 + rng.IntN(n/2-1)
			w := n / h
			n = h * w
			for r := range h {
				for col := range w {
					v := int32(r*w + col)
					if col+1 < w {
						e = append(e, [2]int32{v, v + 1})
					}
					if r+1 < h {
						e = append(e, [2]int32{v, v + int32(w)})
					}
				}
			}
		case 6:
			e = clique(n)
		case 7:
			k := n / 2
			n = 2 * k
			e = append(cycle(0, k), cycle(k, k)...)
			for v := range k {
				e = append(e, [2]int32{int32(v), int32(v + k)})
			}
		}
		g, err := symmetric(n, e)
		if err != nil {
			return nil, err
		}
		ds.Graphs[i], ds.Labels[i] = g, int32(c)
	}
	if err := ds.SplitRandom(cfg.Val, cfg.Test, cfg.Seed); err != nil {
		return nil, err
	}
	return ds, nil
}

// cycle returns the undirected edges of a cycle over nodes first to
// first+n-1.
func cycle(first, n int) [][2]int32 {
	e := make([][2]int32, n)
	for i := range n {
		e[i] = [2]int32{int32(first + i), int32(first + (i+1)%n)}
	}
	return e
}

// clique returns the undirected edges of the complete graph on n nodes.
func clique(n int) [][2]int32 {
	var e [][2]int32
	for u := range n {
		for v := u + 1; v < n; v++ {
			e = append(e, [2]int32{int32(u), int32(v)})
		}
	}
	return e
}

// symmetric builds the graph on n nodes with every undirected edge in both
// directions, in increasing (source, destination) order.
func symmetric(n int, und [][2]int32) (*graph.Graph, error) {
	dir := make([][2]int32, 0, 2*len(und))
	for _, p := range und {
		dir = append(dir, p, [2]int32{p[1], p[0]})
	}
	slices.SortFunc(dir, func(a, b [2]int32) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	src := make([]int32, len(dir))
	dst := make([]int32, len(dir))
	for i, p := range dir {
		src[i], dst[i] = p[0], p[1]
	}
	return graph.FromCOO(n, n, src, dst)
}
