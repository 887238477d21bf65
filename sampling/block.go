package sampling

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gnngo/gnn/graph"
)

// Block is the message-flow graph of one layer (DGL's block): a bipartite
// graph from NumSrc source nodes to NumDst destination nodes whose edges run
// from a sampled neighbour to the seed it was sampled for. The destinations
// are the first NumDst sources, in the same order, so a layer reads the
// destinations' own features as the first NumDst rows of the sources'.
//
// Block edge k is parent edge EdgeIDs[k]; block source i is parent node
// SrcNodes[i]. Edges are grouped by destination, in the frontier's order.
// The maps belong to the Block and must not be modified.
type Block struct {
	*graph.Graph

	// SrcNodes maps every source node to its parent node; its first NumDst
	// entries are the destination nodes.
	SrcNodes []int32
	// EdgeIDs maps every block edge to its parent edge.
	EdgeIDs []int64
}

// DstNodes returns the parent IDs of the destination nodes, the first
// NumDst entries of SrcNodes.
func (b *Block) DstNodes() []int32 { return b.SrcNodes[:b.NumDst()] }

// ToBlock builds the Block of a frontier (DGL's to_block): the destinations
// are f.Seeds, which must be distinct, and the sources are the seeds
// followed by every other neighbour in the order of its first appearance
// in f.Neighbors. It returns an error naming the first repeated seed, or
// the first node or edge entry that is out of range or inconsistent.
func ToBlock(f *Frontier) (*Block, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	r := newRelabeler(f.NumNodes)
	return r.block(f, false)
}

// check validates a user-built frontier.
func (f *Frontier) check() error {
	if f.NumNodes < 0 || f.NumNodes > graph.MaxNodes {
		return fmt.Errorf("sampling: frontier of %d nodes", f.NumNodes)
	}
	if len(f.Indptr) != len(f.Seeds)+1 || f.Indptr[0] != 0 || f.Indptr[len(f.Seeds)] != int64(len(f.Neighbors)) ||
		len(f.EdgeIDs) != len(f.Neighbors) {
		return fmt.Errorf("sampling: frontier of %d seeds has %d row pointers, %d neighbours and %d edge IDs",
			len(f.Seeds), len(f.Indptr), len(f.Neighbors), len(f.EdgeIDs))
	}
	if len(f.Neighbors) > graph.MaxEdges {
		return fmt.Errorf("sampling: %d frontier edges exceed %d", len(f.Neighbors), graph.MaxEdges)
	}
	for i := range f.Seeds {
		if f.Indptr[i+1] < f.Indptr[i] {
			return fmt.Errorf("sampling: frontier row pointers decrease at seed position %d", i)
		}
	}
	for k, u := range f.Neighbors {
		if u < 0 || int(u) >= f.NumNodes {
			return fmt.Errorf("sampling: frontier edge %d has neighbour %d out of range [0, %d)", k, u, f.NumNodes)
		}
		if f.EdgeIDs[k] < 0 {
			return fmt.Errorf("sampling: frontier edge %d has negative edge ID %d", k, f.EdgeIDs[k])
		}
	}
	return nil
}

// relabeler maps parent node IDs to block source IDs: node v is a source
// of the block being built when bit v of seen is set, and local[v] is then
// its source ID. Between calls no bit is set, so one relabeler serves many
// blocks without clearing an array of the parent's size, and local is
// never cleared at all. The bit set (an eighth of a megabyte per million
// nodes) stays in cache where local (4 bytes per node) does not: a
// neighbour seen for the first time, most of a large block's, costs a
// cached read and a write, and only repeats read local.
type relabeler struct {
	seen  []uint64
	local []int32
	// nbrBuf is MultiLayer's frontier memory, reused from layer to layer
	// and batch to batch.
	nbrBuf []int32
}

func newRelabeler(n int) *relabeler {
	return &relabeler{seen: make([]uint64, (n+63)/64), local: make([]int32, n)}
}

// relabelers recycles relabelers by parent node count.
type relabelPool struct {
	n    int
	pool sync.Pool
}

func (p *relabelPool) get() *relabeler {
	if r, ok := p.pool.Get().(*relabeler); ok {
		return r
	}
	return newRelabeler(p.n)
}

func (p *relabelPool) put(r *relabeler) { p.pool.Put(r) }

// block builds f's block; f has been checked or built by a sampler. With
// own set the block takes f.EdgeIDs instead of copying it.
func (r *relabeler) block(f *Frontier, own bool) (*Block, error) {
	bb, err := r.start(f.Seeds, f.NumNodes)
	if err != nil {
		return nil, err
	}
	bb.add(f, 0, len(f.Seeds))
	return bb.finish(f, own)
}

// blockBuilder relabels a frontier seed by seed, so that a block can be
// built while the frontier is still being sampled. Until finish or abort
// it holds the relabeler's nodes marked.
type blockBuilder struct {
	r          *relabeler
	numDst     int
	src        []int32 // parent IDs of the sources so far
	bsrc, bdst []int32
}

// start marks the destinations, the distinct seeds, as the first sources.
func (r *relabeler) start(seeds []int32, numNodes int) (*blockBuilder, error) {
	bb := &blockBuilder{r: r, numDst: len(seeds), src: make([]int32, 0, 2*len(seeds))}
	for i, v := range seeds {
		if v < 0 || int(v) >= numNodes {
			bb.abort()
			return nil, fmt.Errorf("sampling: seed %d (position %d) out of range [0, %d)", v, i, numNodes)
		}
		if r.seen[v>>6]>>(v&63)&1 != 0 {
			j := r.local[v]
			bb.abort()
			return nil, fmt.Errorf("sampling: seed %d repeated at positions %d and %d: block destinations must be distinct", v, j, i)
		}
		r.seen[v>>6] |= 1 << (v & 63)
		r.local[v] = int32(len(bb.src))
		bb.src = append(bb.src, v)
	}
	return bb, nil
}

// add relabels the edges of seeds [lo, hi) of f; calls must cover the seeds
// in order.
func (bb *blockBuilder) add(f *Frontier, lo, hi int) {
	if bb.bsrc == nil {
		e := len(f.Neighbors)
		bb.bsrc, bb.bdst = make([]int32, e), make([]int32, e)
		bb.src = slices.Grow(bb.src, e/2)
	}
	seen, local := bb.r.seen, bb.r.local
	for i := lo; i < hi; i++ {
		for k := f.Indptr[i]; k < f.Indptr[i+1]; k++ {
			u := f.Neighbors[k]
			var j int32
			if w, b := u>>6, uint64(1)<<(u&63); seen[w]&b == 0 {
				seen[w] |= b
				j = int32(len(bb.src))
				local[u] = j
				bb.src = append(bb.src, u)
			} else {
				j = local[u]
			}
			bb.bsrc[k], bb.bdst[k] = j, int32(i)
		}
	}
}

// finish returns the block and leaves the relabeler clean.
func (bb *blockBuilder) finish(f *Frontier, own bool) (*Block, error) {
	defer bb.abort()
	if bb.bsrc == nil {
		bb.bsrc, bb.bdst = []int32{}, []int32{}
	}
	g, err := graph.FromCOO(len(bb.src), bb.numDst, bb.bsrc, bb.bdst)
	if err != nil {
		return nil, err
	}
	eids := f.EdgeIDs
	if !own {
		eids = slices.Clone(eids)
	}
	return &Block{Graph: g, SrcNodes: bb.src, EdgeIDs: eids}, nil
}

// abort unmarks the nodes marked so far.
func (bb *blockBuilder) abort() {
	seen := bb.r.seen
	for _, v := range bb.src {
		seen[v>>6] &^= 1 << (v & 63)
	}
}
