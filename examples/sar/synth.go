package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/dist/sar"
	"github.com/gnngo/gnn/internal/limits"
	"github.com/gnngo/gnn/nn/train"
)

// synthesise gives a part of a bare graph (cmd/gnnpart -gen) random
// features (normal, cols per node), labels (in classes) and a 60/20/20
// train/val/test split, each drawn from the node's global ID and seed, so
// that they do not depend on how the graph was split.
func synthesise(p *partition.Part, cols, classes int, seed uint64) error {
	if cols <= 0 || classes <= 0 {
		return fmt.Errorf("a bare graph needs -features and -classes > 0, got %d and %d", cols, classes)
	}
	n := p.NumNodes()
	f := &dataset.Features{Rows: n, Cols: cols, Dense: make([]float32, n*cols)}
	p.Labels, p.NumClasses = make([]int32, n), classes
	p.Train, p.Val, p.Test = nil, nil, nil
	for i, v := range p.Nodes {
		r := rand.New(rand.NewPCG(seed, uint64(v)))
		for k := range cols {
			f.Dense[i*cols+k] = float32(r.NormFloat64())
		}
		p.Labels[i] = int32(r.IntN(classes))
		switch u := r.Float64(); {
		case u < 0.6:
			p.Train = append(p.Train, int32(i))
		case u < 0.8:
			p.Val = append(p.Val, int32(i))
		default:
			p.Test = append(p.Test, int32(i))
		}
	}
	p.Features = f
	return nil
}

// printStats prints one line about this rank's run: its nodes and
// in-edges, peak resident memory, median epoch time, the bytes its
// aggregations sent per epoch and the least they could have sent
// (sar.Graph.LeastBytes), and live, the largest live heap at the end of
// an epoch (heapWatch).
func printStats(w io.Writer, rank int, p *partition.Part, g *sar.Graph, res *train.Result, live uint64) {
	times := make([]time.Duration, len(res.History))
	for i, e := range res.History {
		times[i] = e.Time
	}
	slices.Sort(times)
	var median time.Duration
	if len(times) > 0 {
		median = times[len(times)/2]
	}
	epochs := float64(max(len(res.History), 1))
	fmt.Fprintf(w, "stats rank %d nodes %d edges %d peak_rss_mib %.1f epoch_ms %.1f sent_mb_per_epoch %.2f least_mb_per_epoch %.2f live_heap_mib %.1f\n",
		rank, p.NumNodes(), g.NumEdges(), float64(limits.PeakRSS())/(1<<20), float64(median.Microseconds())/1000,
		float64(g.BytesSent())/1e6/epochs, float64(g.LeastBytes())/1e6/epochs, float64(live)/(1<<20))
}

// heapWatch measures, at the end of every epoch, what training holds
// between epochs (the graph, the features, the model's values and the
// machines' buffers): with stats, the live heap after a garbage
// collection (the process's: -inproc ranks share it); with a profile path,
// a heap profile written there, each epoch's replacing the last's.
type heapWatch struct {
	stats   bool
	profile string
	live    uint64 // the largest live heap seen
	err     error  // the first error writing the profile
}

func (h *heapWatch) epoch() {
	if h.stats {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.live = max(h.live, ms.HeapAlloc)
	}
	if h.profile != "" && h.err == nil {
		h.err = writeHeapProfile(h.profile)
	}
}

// writeHeapProfile writes the heap profile of what is live now to path,
// after a garbage collection.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("-memprofile: %w", err)
	}
	return f.Close()
}
