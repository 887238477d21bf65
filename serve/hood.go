package serve

import (
	"math/rand/v2"
	"slices"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/sampling"
)

// hood is one request's neighbourhood, in the request's own numbering:
// layers[l] is the block layer l runs on, and inputs the nodes whose
// features layer 0 reads (its sources), graph node IDs or N+k for the
// request's new node k. The destinations of every layer are the first
// sources of that layer and the sources of the layer above, so the last
// layer's destinations, the seeds, are the first rows of everything.
type hood struct {
	layers []hop
	inputs []int32
}

// hop is one block in local numbering: nsrc sources, the first ndst of
// them the destinations, and edges src[k] -> dst[k] grouped by destination.
type hop struct {
	nsrc, ndst int
	src, dst   []int32
}

// seeds returns the number of output rows.
func (h *hood) seeds() int { return h.layers[len(h.layers)-1].ndst }

// fromMiniBatch converts a sampled mini-batch.
func fromMiniBatch(mb *sampling.MiniBatch) *hood {
	h := &hood{layers: make([]hop, len(mb.Blocks)), inputs: mb.InputNodes}
	for l, b := range mb.Blocks {
		src, dst := b.COO()
		h.layers[l] = hop{nsrc: b.NumSrc(), ndst: b.NumDst(), src: src, dst: dst}
	}
	return h
}

// overlay is the graph with a request's new nodes and edges added, without
// copying the graph: nodes n to n+len(new)-1 are the new nodes, and extra
// lists, by destination, the sources of the request's edges in request
// order (after a node's edges in the graph). With selfLoops every node has
// a self-loop after all its other in-edges.
type overlay struct {
	g         *graph.Graph
	n         int
	extra     map[int32][]int32
	selfLoops bool
}

// sample draws the neighbourhood of the distinct nodes seeds over depth
// layers with the fan-outs given (the input layer's first; -1 takes every
// in-edge). A destination's candidates are its in-edges in the graph, in
// CSC order, then its extra edges; a fan-out f of n > f candidates keeps f
// of them drawn uniformly without replacement by a generator seeded with
// (seed, layer, position), in candidate order. With every fan-out -1 and no
// new node this is the neighbourhood sampling.MultiLayer gives (on the
// graph with self-loops added, when they are).
func (o *overlay) sample(seeds []int32, fanouts []int, seed uint64) *hood {
	depth := len(fanouts)
	h := &hood{layers: make([]hop, depth)}
	csc := o.g.CSC()
	frontier := slices.Clone(seeds)
	var cands []int32
	for l := depth - 1; l >= 0; l-- {
		pos := make(map[int32]int32, len(frontier))
		for i, v := range frontier {
			pos[v] = int32(i)
		}
		srcs := slices.Clone(frontier)
		var hp hop
		for i, v := range frontier {
			cands = cands[:0]
			if int(v) < o.n {
				lo, hi := csc.Row(int(v))
				cands = append(cands, csc.Indices[lo:hi]...)
			}
			cands = append(cands, o.extra[v]...)
			if o.selfLoops {
				cands = append(cands, v)
			}
			for _, k := range choose(len(cands), fanouts[l], seed, l, i) {
				u := cands[k]
				j, ok := pos[u]
				if !ok {
					j = int32(len(srcs))
					pos[u] = j
					srcs = append(srcs, u)
				}
				hp.src = append(hp.src, j)
				hp.dst = append(hp.dst, int32(i))
			}
		}
		hp.nsrc, hp.ndst = len(srcs), len(frontier)
		h.layers[l] = hp
		frontier = srcs
	}
	h.inputs = frontier
	return h
}

// choose returns the positions of the candidates kept out of n with
// fan-out f, increasing: all of them when f is -1 or n <= f, otherwise f
// drawn uniformly without replacement (Floyd's algorithm) from a generator
// seeded with seed, the layer and the destination's position.
func choose(n, f int, seed uint64, layer, position int) []int {
	if f < 0 || n <= f {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	rng := rand.New(rand.NewPCG(seed, uint64(layer)<<40|uint64(position)))
	chosen := make(map[int]bool, f)
	out := make([]int, 0, f)
	for j := n - f; j < n; j++ {
		t := rng.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
