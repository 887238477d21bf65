package sampling

import (
	"fmt"
	"slices"

	"github.com/gnngo/gnn/graph"
)

// MultiLayer samples the blocks of a model of len(fanouts) layers (DGL's
// MultiLayerNeighborSampler): fanouts[l] is the fan-out of layer l, layer 0
// reading the input features. It is safe for concurrent use.
type MultiLayer struct {
	g       *graph.Graph
	s       *neighborSampler
	fanouts []int
	pool    relabelPool
}

// MiniBatch is what MultiLayer.Sample returns: Blocks[l] is layer l's block,
// InputNodes the parent IDs of the nodes whose features the first layer
// reads (Blocks[0].SrcNodes) and OutputNodes the seeds, whose outputs the
// last layer computes (the last block's DstNodes).
type MiniBatch struct {
	Blocks      []*Block
	InputNodes  []int32
	OutputNodes []int32
}

// NumEdges returns the number of sampled edges over all blocks.
func (mb *MiniBatch) NumEdges() int {
	n := 0
	for _, b := range mb.Blocks {
		n += b.NumEdges()
	}
	return n
}

// NewMultiLayer returns a sampler of g with one fan-out per layer (each -1,
// meaning every neighbour, or at least 0) and the options of
// SampleNeighbors, which it checks once.
func NewMultiLayer(g *graph.Graph, fanouts []int, opts Options) (*MultiLayer, error) {
	if len(fanouts) == 0 {
		return nil, fmt.Errorf("sampling: no layers (empty fanouts)")
	}
	for l, f := range fanouts {
		if f < -1 {
			return nil, fmt.Errorf("sampling: layer %d fanout %d, want -1 (all) or at least 0", l, f)
		}
	}
	s, err := newNeighborSampler(g, opts)
	if err != nil {
		return nil, err
	}
	return &MultiLayer{g: g, s: s, fanouts: slices.Clone(fanouts), pool: relabelPool{n: s.numNodes}}, nil
}

// NumLayers returns the number of layers.
func (m *MultiLayer) NumLayers() int { return len(m.fanouts) }

// Sample draws the blocks of the distinct seed nodes seeds, from the last
// layer back to the first: the last block's destinations are the seeds,
// and each block's sources are the destinations of the block below. Layer
// l draws from the sub-stream l of seed, so the batch depends only on seed
// and seeds, whatever GOMAXPROCS is. Each layer's draws run in parallel
// over the seeds while the calling goroutine relabels the edges already
// drawn into the block. seeds is not modified and not kept (OutputNodes is
// a copy).
func (m *MultiLayer) Sample(seeds []int32, seed uint64) (*MiniBatch, error) {
	return m.sample(m.s, seeds, seed)
}

// sample is Sample with the neighbour sampler s, m's own or one excluding
// more edges (EdgeLoader's).
func (m *MultiLayer) sample(s *neighborSampler, seeds []int32, seed uint64) (*MiniBatch, error) {
	r := m.pool.get()
	defer m.pool.put(r)
	blocks := make([]*Block, len(m.fanouts))
	dst := slices.Clone(seeds)
	for l := len(m.fanouts) - 1; l >= 0; l-- {
		// The block is relabelled chunk by chunk while the rest of the
		// frontier is drawn.
		bb, err := r.start(dst, s.numNodes)
		if err != nil {
			return nil, fmt.Errorf("%w (layer %d)", err, l)
		}
		f, err := s.sample(dst, m.fanouts[l], derive(seed, uint64(l)), r.nbrBuf, bb.add)
		if err != nil {
			bb.abort()
			return nil, fmt.Errorf("%w (layer %d)", err, l)
		}
		r.nbrBuf = f.Neighbors // the block keeps no reference to it
		b, err := bb.finish(f, true)
		if err != nil {
			return nil, fmt.Errorf("%w (layer %d)", err, l)
		}
		blocks[l] = b
		dst = b.SrcNodes
	}
	return &MiniBatch{Blocks: blocks, InputNodes: blocks[0].SrcNodes, OutputNodes: blocks[len(blocks)-1].DstNodes()}, nil
}
