package sampling

import (
	"fmt"
	"iter"
	"slices"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/enum"
)

// ExcludeMode selects the edges that an EdgeLoader keeps out of a batch's
// blocks, so that a link predictor does not see the edges it is trained to
// predict (DGL's exclude argument of as_edge_prediction_sampler).
type ExcludeMode int

const (
	// ExcludeNone samples the blocks from the whole graph.
	ExcludeNone ExcludeMode = iota
	// ExcludeSelf keeps the batch's seed edges out of every block.
	ExcludeSelf
	// ExcludeReverse keeps the seed edges and their reverse edges
	// (EdgeLoaderOptions.ReverseEdgeIDs) out of every block, as an
	// undirected graph stored with both directions needs.
	ExcludeReverse
)

// String returns "none", "self" or "reverse".
func (x ExcludeMode) String() string {
	return enum.Name(x, "ExcludeMode", "none", "self", "reverse")
}

// EdgeLoaderOptions configures an EdgeLoader.
type EdgeLoaderOptions struct {
	// BatchSize is the number of seed edges per batch, at least 1.
	BatchSize int
	// Shuffle draws a new order of the seed edges every epoch.
	Shuffle bool
	// DropLast drops the last batch when it is smaller than BatchSize;
	// otherwise it is kept.
	DropLast bool
	// Seed selects the orders, the negatives and every batch's draws.
	Seed uint64

	// Negatives draws the negative pairs of every batch; nil means none
	// (EdgeBatch.Neg is then nil).
	Negatives NegativeSampler

	// Exclude selects the edges kept out of the blocks.
	Exclude ExcludeMode

	// ReverseEdgeIDs holds the reverse of every edge of the graph, indexed
	// by edge ID, -1 for an edge without one (ReverseEdgeIDs computes it
	// for a graph stored with both directions). ExcludeReverse needs it;
	// when given with another mode it is checked and not used. The loader
	// keeps the slice rather than a copy (it is as long as the graph's
	// edge list); it must not be modified while the loader is in use.
	ReverseEdgeIDs []int64
}

// EdgeBatch is one batch of an EdgeLoader: the blocks of the union of all
// endpoints of its positive and negative pairs, and the pairs as graphs over
// the last block's output nodes.
//
// The pair graphs Pos and Neg have NumNodes == len(OutputNodes), and their
// node i is parent node OutputNodes[i], so the last layer's output row i
// scores node i of both. Pos edge i is the batch's seed edge EdgeIDs[i]
// (src -> dst of the parent edge); Neg edges i*k to i*k+k-1 are the k
// negatives of positive i, in the order the NegativeSampler returned them.
// OutputNodes lists the endpoints in the order of their first appearance in
// the positive sources, positive destinations, negative sources, negative
// destinations (DGL's compact_graphs of the pair graphs).
type EdgeBatch struct {
	*MiniBatch

	// Pos is the graph of the positive pairs.
	Pos *graph.Graph
	// Neg is the graph of the negative pairs, nil without a
	// NegativeSampler.
	Neg *graph.Graph
	// EdgeIDs holds the parent edge ID of every positive pair; nil for a
	// batch of SamplePairs, whose pairs need not be edges.
	EdgeIDs []int64
}

// EdgeLoader cuts a set of seed edges (the training edges) into batches
// for link prediction (DGL's as_edge_prediction_sampler under a DataLoader
// over edge IDs, PyG's LinkNeighborLoader). For every batch it draws the
// negatives, samples one block stack with a MultiLayer sampler over the
// union of the endpoints, excluding the batch's seed edges (and their
// reverses) from every layer when asked, and returns the positive and
// negative pair graphs compacted onto the blocks' output nodes.
//
// Epoch e's order and batches depend only on the options, the seed edges
// and e, never on timing or GOMAXPROCS (the NegativeSampler must be
// deterministic too). An EdgeLoader may serve several epochs at once.
type EdgeLoader struct {
	m        *MultiLayer
	edges    []int64
	opts     EdgeLoaderOptions
	src, dst []int32 // the graph's COO
}

// NewEdgeLoader returns a loader of the seed edges seedEdges (copied): edge
// IDs of m's graph, repeats allowed. It returns an error for a nil sampler,
// a batch size below 1, a graph without edges, a seed edge out of range
// (naming its position), an unknown exclusion mode, ExcludeReverse without
// reverse edge IDs, and reverse edge IDs of the wrong length or out of
// range.
func NewEdgeLoader(m *MultiLayer, seedEdges []int64, opts EdgeLoaderOptions) (*EdgeLoader, error) {
	if m == nil {
		return nil, fmt.Errorf("sampling: nil sampler")
	}
	if opts.BatchSize < 1 {
		return nil, fmt.Errorf("sampling: batch size %d, want at least 1", opts.BatchSize)
	}
	e := int64(m.g.NumEdges())
	if e == 0 {
		return nil, fmt.Errorf("sampling: edge loader over graph %v, which has no edges", m.g)
	}
	for i, id := range seedEdges {
		if id < 0 || id >= e {
			return nil, fmt.Errorf("sampling: seed edge %d (position %d) out of range [0, %d)", id, i, e)
		}
	}
	switch opts.Exclude {
	case ExcludeNone, ExcludeSelf:
	case ExcludeReverse:
		if opts.ReverseEdgeIDs == nil {
			return nil, fmt.Errorf("sampling: exclusion %v without ReverseEdgeIDs", opts.Exclude)
		}
	default:
		return nil, fmt.Errorf("sampling: unknown exclusion mode %v", opts.Exclude)
	}
	if opts.ReverseEdgeIDs != nil {
		if int64(len(opts.ReverseEdgeIDs)) != e {
			return nil, fmt.Errorf("sampling: %d reverse edge IDs for %d edges", len(opts.ReverseEdgeIDs), e)
		}
		for i, r := range opts.ReverseEdgeIDs {
			if r < -1 || r >= e {
				return nil, fmt.Errorf("sampling: reverse edge ID %d of edge %d out of range [-1, %d)", r, i, e)
			}
		}
	}
	src, dst := m.g.COO()
	return &EdgeLoader{m: m, edges: slices.Clone(seedEdges), opts: opts, src: src, dst: dst}, nil
}

// NumBatches returns the number of batches of an epoch.
func (l *EdgeLoader) NumBatches() int {
	return numBatches(len(l.edges), l.opts.BatchSize, l.opts.DropLast)
}

// Order returns epoch's order of the seed edges: batch i is positions
// i*BatchSize to (i+1)*BatchSize-1.
func (l *EdgeLoader) Order(epoch int) []int64 {
	return epochOrder(l.edges, l.opts.Shuffle, l.opts.Seed, epoch)
}

// edgePrefetch is the number of batches an EdgeLoader samples at once,
// ahead of the loop body.
const edgePrefetch = 2

// Epoch returns the batches of epoch number epoch in order, for a range
// loop. While the loop body works on one batch, the next two are sampled
// at once in goroutines (which keeps two cores busy through the serial
// parts of sampling one); leaving the loop early stops them. A sampling
// error ends the sequence with (nil, err).
func (l *EdgeLoader) Epoch(epoch int) iter.Seq2[*EdgeBatch, error] {
	order := l.Order(epoch)
	epochSeed := derive(l.opts.Seed^0x2f6b7a1d, uint64(epoch))
	return prefetch(l.NumBatches(), edgePrefetch, func(b int) (*EdgeBatch, error) {
		lo := b * l.opts.BatchSize
		return l.Sample(order[lo:min(lo+l.opts.BatchSize, len(order))], derive(epochSeed, uint64(b)))
	})
}

// Sample returns the batch of the seed edges edges (edge IDs of the graph,
// repeats allowed) drawn with seed, as Epoch does for each of its batches,
// excluding edges as the options say. edges is not modified; the batch's
// EdgeIDs is a copy.
func (l *EdgeLoader) Sample(edges []int64, seed uint64) (*EdgeBatch, error) {
	src, dst := make([]int32, len(edges)), make([]int32, len(edges))
	ne := int64(len(l.src))
	for i, e := range edges {
		if e < 0 || e >= ne {
			return nil, fmt.Errorf("sampling: seed edge %d (position %d) out of range [0, %d)", e, i, ne)
		}
		src[i], dst[i] = l.src[e], l.dst[e]
	}
	s := l.m.s
	if l.opts.Exclude != ExcludeNone {
		var err error
		if s, err = l.excluding(edges); err != nil {
			return nil, err
		}
	}
	eb, err := l.pairs(s, src, dst, seed)
	if err != nil {
		return nil, err
	}
	eb.EdgeIDs = slices.Clone(edges)
	return eb, nil
}

// SamplePairs returns the batch of the node pairs (src[i], dst[i]), which
// need not be edges of the graph (the validation or test pairs of link
// prediction, held out of the graph), drawn with seed. Nothing is excluded
// beyond the sampler's own Options.Exclude; the batch's EdgeIDs is nil.
func (l *EdgeLoader) SamplePairs(src, dst []int32, seed uint64) (*EdgeBatch, error) {
	if len(src) != len(dst) {
		return nil, fmt.Errorf("sampling: %d pair sources but %d destinations", len(src), len(dst))
	}
	n := l.m.s.numNodes
	for i := range src {
		if src[i] < 0 || int(src[i]) >= n || dst[i] < 0 || int(dst[i]) >= n {
			return nil, fmt.Errorf("sampling: pair %d (%d, %d) has a node out of range [0, %d)", i, src[i], dst[i], n)
		}
	}
	return l.pairs(l.m.s, src, dst, seed)
}

// negativeTag is the sub-stream of a batch's seed that draws its
// negatives; layers use the sub-streams 0 to NumLayers-1.
const negativeTag = 1<<64 - 1

// pairs builds the batch of the positive pairs (src, dst), whose nodes are
// in range, sampling the blocks with s.
func (l *EdgeLoader) pairs(s *neighborSampler, src, dst []int32, seed uint64) (*EdgeBatch, error) {
	var negSrc, negDst []int32
	n := s.numNodes
	if l.opts.Negatives != nil {
		var err error
		negSrc, negDst, err = l.opts.Negatives.Negatives(src, dst, derive(seed, negativeTag))
		if err != nil {
			return nil, fmt.Errorf("sampling: negative sampler: %w", err)
		}
		if len(negSrc) != len(negDst) || len(src) == 0 && len(negSrc) > 0 || len(src) > 0 && len(negSrc)%len(src) != 0 {
			return nil, fmt.Errorf("sampling: negative sampler returned %d sources and %d destinations for %d positives, want k of each per positive",
				len(negSrc), len(negDst), len(src))
		}
		for i := range negSrc {
			if negSrc[i] < 0 || int(negSrc[i]) >= n || negDst[i] < 0 || int(negDst[i]) >= n {
				return nil, fmt.Errorf("sampling: negative sampler returned pair %d (%d, %d) with a node out of range [0, %d)", i, negSrc[i], negDst[i], n)
			}
		}
	}

	// Compact the endpoints, in order of first appearance, with a
	// relabeler's marks; the pair lists are relabelled in place of copies.
	r := l.m.pool.get()
	nodes := make([]int32, 0, 2*len(src)+len(negDst))
	local := func(ends []int32) []int32 {
		out := make([]int32, len(ends))
		for i, v := range ends {
			if w, b := v>>6, uint64(1)<<(v&63); r.seen[w]&b == 0 {
				r.seen[w] |= b
				r.local[v] = int32(len(nodes))
				nodes = append(nodes, v)
			}
			out[i] = r.local[v]
		}
		return out
	}
	ps, pd := local(src), local(dst)
	var ns, nd []int32
	if l.opts.Negatives != nil {
		ns, nd = local(negSrc), local(negDst)
	}
	for _, v := range nodes {
		r.seen[v>>6] &^= 1 << (v & 63)
	}
	l.m.pool.put(r)

	pos, err := graph.FromCOO(len(nodes), len(nodes), ps, pd)
	if err != nil {
		return nil, fmt.Errorf("sampling: positive pair graph: %w", err)
	}
	var neg *graph.Graph
	if l.opts.Negatives != nil {
		if neg, err = graph.FromCOO(len(nodes), len(nodes), ns, nd); err != nil {
			return nil, fmt.Errorf("sampling: negative pair graph: %w", err)
		}
	}
	mb, err := l.m.sample(s, nodes, seed)
	if err != nil {
		return nil, err
	}
	return &EdgeBatch{MiniBatch: mb, Pos: pos, Neg: neg}, nil
}

// excluding returns a copy of the MultiLayer's neighbour sampler that also
// excludes edges and, with ExcludeReverse, their reverse edges.
func (l *EdgeLoader) excluding(edges []int64) (*neighborSampler, error) {
	ex := make([]int64, 0, 2*len(edges))
	ex = append(ex, edges...)
	if l.opts.Exclude == ExcludeReverse {
		ne := int64(len(l.src))
		for _, e := range edges {
			r := l.opts.ReverseEdgeIDs[e]
			if r < -1 || r >= ne {
				// Checked by NewEdgeLoader: the slice was changed since.
				return nil, fmt.Errorf("sampling: reverse edge ID %d of edge %d out of range [-1, %d)", r, e, ne)
			}
			if r >= 0 {
				ex = append(ex, r)
			}
		}
	}
	slices.Sort(ex)
	return l.m.s.excluding(slices.Compact(ex)), nil
}
