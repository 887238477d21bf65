package sampling

import (
	"fmt"
	"iter"
	"slices"
)

// LoaderOptions configures a Loader.
type LoaderOptions struct {
	// BatchSize is the number of seed nodes per batch, at least 1.
	BatchSize int
	// Shuffle draws a new order of the seed nodes every epoch.
	Shuffle bool
	// DropLast drops the last batch when it is smaller than BatchSize;
	// otherwise it is kept.
	DropLast bool
	// Seed selects the orders and every batch's draws.
	Seed uint64
}

// Loader cuts a set of seed nodes (the training nodes) into batches and
// samples each one with a MultiLayer sampler (DGL's DataLoader, PyG's
// NeighborLoader). Epoch e's order and batches depend only on the options,
// the seed nodes and e, never on timing or GOMAXPROCS. A Loader may serve
// several epochs at once.
type Loader struct {
	m     *MultiLayer
	seeds []int32
	opts  LoaderOptions
}

// NewLoader returns a loader of the seed nodes seeds (copied), which must be
// distinct nodes of m's graph.
func NewLoader(m *MultiLayer, seeds []int32, opts LoaderOptions) (*Loader, error) {
	if m == nil {
		return nil, fmt.Errorf("sampling: nil sampler")
	}
	if opts.BatchSize < 1 {
		return nil, fmt.Errorf("sampling: batch size %d, want at least 1", opts.BatchSize)
	}
	r := m.pool.get()
	defer m.pool.put(r)
	bb, err := r.start(seeds, m.s.numNodes) // checks range and repeats
	if err != nil {
		return nil, err
	}
	bb.abort()
	return &Loader{m: m, seeds: slices.Clone(seeds), opts: opts}, nil
}

// NumBatches returns the number of batches of an epoch.
func (l *Loader) NumBatches() int {
	return numBatches(len(l.seeds), l.opts.BatchSize, l.opts.DropLast)
}

// Order returns epoch's order of the seed nodes: batch i is positions
// i*BatchSize to (i+1)*BatchSize-1.
func (l *Loader) Order(epoch int) []int32 {
	return epochOrder(l.seeds, l.opts.Shuffle, l.opts.Seed, epoch)
}

// Epoch returns the batches of epoch number epoch in order, for a range
// loop. While the loop body works on one batch, the next is sampled in a
// goroutine; leaving the loop early stops it. A sampling error ends the
// sequence with (nil, err).
func (l *Loader) Epoch(epoch int) iter.Seq2[*MiniBatch, error] {
	order := l.Order(epoch)
	epochSeed := derive(l.opts.Seed^0x5bd1e995, uint64(epoch))
	return prefetch(l.NumBatches(), 1, func(b int) (*MiniBatch, error) {
		lo := b * l.opts.BatchSize
		return l.m.Sample(order[lo:min(lo+l.opts.BatchSize, len(order))], derive(epochSeed, uint64(b)))
	})
}
