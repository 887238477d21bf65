package sampling_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/sampling"
)

var (
	biOnce  sync.Once
	biGraph *graph.Graph
	biRev   []int64
	biErr   error
)

// productsBidirected returns a uniform random undirected graph the size of
// ogbn-products (2,449,029 nodes, 61,859,140 directed edges): 30,929,570
// random pairs as edges 0..E/2-1 followed by their reverses, so that edge
// i's reverse is i+E/2 (DGL's add_reverse_edges), with its CSC built.
func productsBidirected(b *testing.B) (*graph.Graph, []int64) {
	biOnce.Do(func() {
		const n, half = 2449029, 61859140 / 2
		var g *graph.Graph
		if g, biErr = generate.Uniform(n, half, 1); biErr != nil {
			return
		}
		s, d := g.COO()
		src, dst := make([]int32, 0, 2*half), make([]int32, 0, 2*half)
		src, dst = append(append(src, s...), d...), append(append(dst, d...), s...)
		if biGraph, biErr = graph.FromCOO(n, n, src, dst); biErr != nil {
			return
		}
		biGraph.CSC()
		biRev = make([]int64, 2*half)
		for i := range int64(half) {
			biRev[i], biRev[i+half] = i+half, i
		}
	})
	if biErr != nil {
		b.Fatal(biErr)
	}
	return biGraph, biRev
}

// BenchmarkEdgeLoader measures sampled block edges per second of an
// EdgeLoader epoch with the node loader's fan-outs 15, 10, 5 on an
// undirected ogbn-products-sized graph: batches of 512 seed edges with one
// uniform negative destination each (up to 1,536 output nodes), with no
// exclusion and with the seed edges and their reverses excluded. The loop
// body does nothing with the batch, so the figure is the loader's own
// throughput, the next batch sampled while the current one is handed out.
// For comparison, loader=node runs the node Loader on the same graph with
// batches of 1,536 random seed nodes. Beside edges/s, edges/cpu-s counts
// the edges per second of CPU time the process used, a figure that varies
// much less than wall time with the load of a shared machine.
func BenchmarkEdgeLoader(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 62M-edge graph")
	}
	g, rev := productsBidirected(b)
	const batch, batches = 512, 16
	rng := rand.New(rand.NewPCG(3, 4))
	seeds := make([]int64, batch*batches)
	for i := range seeds {
		seeds[i] = rng.Int64N(int64(g.NumEdges()))
	}
	m, err := sampling.NewMultiLayer(g, []int{15, 10, 5}, sampling.Options{})
	if err != nil {
		b.Fatal(err)
	}
	nodes := make([]int32, 0, 3*batch*batches)
	for _, v := range rng.Perm(g.NumNodes())[:3*batch*batches] {
		nodes = append(nodes, int32(v))
	}
	nl, err := sampling.NewLoader(m, nodes, sampling.LoaderOptions{BatchSize: 3 * batch, Shuffle: true, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("nodes=%d/edges=%d/fanouts=15,10,5/batch=%d/loader=node", g.NumNodes(), g.NumEdges(), 3*batch), func(b *testing.B) {
		b.ReportAllocs()
		var edges, n int64
		cpu0 := cpuTime()
		for epoch := 0; b.Loop(); epoch++ {
			for mb, err := range nl.Epoch(epoch) {
				if err != nil {
					b.Fatal(err)
				}
				edges += int64(mb.NumEdges())
				n++
			}
		}
		b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
		b.ReportMetric(float64(edges)/(cpuTime()-cpu0).Seconds(), "edges/cpu-s")
		b.ReportMetric(float64(edges)/float64(n), "edges/batch")
	})
	for _, mode := range []sampling.ExcludeMode{sampling.ExcludeNone, sampling.ExcludeReverse} {
		l, err := sampling.NewEdgeLoader(m, seeds, sampling.EdgeLoaderOptions{
			BatchSize: batch, Shuffle: true, Seed: 1, Exclude: mode, ReverseEdgeIDs: rev,
			Negatives: uniformNegatives{n: g.NumNodes(), k: 1},
		})
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("nodes=%d/edges=%d/fanouts=15,10,5/batch=%d/loader=edge/neg=1/exclude=%v", g.NumNodes(), g.NumEdges(), batch, mode)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var edges, n int64
			cpu0 := cpuTime()
			for epoch := 0; b.Loop(); epoch++ {
				for eb, err := range l.Epoch(epoch) {
					if err != nil {
						b.Fatal(err)
					}
					edges += int64(eb.NumEdges())
					n++
				}
			}
			b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(edges)/(cpuTime()-cpu0).Seconds(), "edges/cpu-s")
			b.ReportMetric(float64(edges)/float64(n), "edges/batch")
		})
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReverseEdgeIDs measures ReverseEdgeIDs on an undirected random
// graph of 1M nodes stored with both directions (10M edges) in a random
// edge order, its CSR built beforehand.
func BenchmarkReverseEdgeIDs(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 10M-edge graph")
	}
	g := bidirected(b, 1<<20, 5_000_000, 1)
	g.CSR()
	b.Run(fmt.Sprintf("nodes=%d/edges=%d", g.NumNodes(), g.NumEdges()), func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			if _, err := sampling.ReverseEdgeIDs(g); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(g.NumEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
		b.ReportMetric(float64(g.NumEdges())*float64(b.N)/(cpuTime()-cpu0).Seconds(), "edges/cpu-s")
	})
}
