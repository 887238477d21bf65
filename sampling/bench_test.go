package sampling_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/sampling"
)

var (
	benchOnce  sync.Once
	benchGraph *graph.Graph
	benchErr   error
)

// productsSized returns a uniform random graph the size of ogbn-products
// (2,449,029 nodes, 61,859,140 edges), with its CSC built.
func productsSized(b *testing.B) *graph.Graph {
	benchOnce.Do(func() {
		benchGraph, benchErr = generate.Uniform(2449029, 61859140, 1)
		if benchErr == nil {
			benchGraph.CSC()
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchGraph
}

// BenchmarkSample measures sampled edges per second of the three-layer
// sampler with fan-outs 15, 10, 5 on batches of 1024 seed nodes of an
// ogbn-products-sized graph: one batch at a time (concurrent=1, the
// latency of a batch), and two batches sampled at once as a Loader's
// prefetching overlaps them with training (concurrent=2). Edge IDs in
// random order (as generated) make the sampler read the edge-ID map of the
// CSC view; edge-order=dst (graph.ReorderEdges) spares it that.
func BenchmarkSample(b *testing.B) {
	g := productsSized(b)
	perm := rand.New(rand.NewPCG(1, 2)).Perm(g.NumNodes())
	batch := func(i int) []int32 {
		seeds := make([]int32, 1024)
		for j := range seeds {
			seeds[j] = int32(perm[(i*1024+j)%len(perm)])
		}
		return seeds
	}
	ordered, _, err := g.ReorderEdges(graph.ByDst)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		order   string
		g       *graph.Graph
		replace bool
	}{{"random", g, false}, {"random", g, true}, {"dst", ordered, false}} {
		m, err := sampling.NewMultiLayer(c.g, []int{15, 10, 5}, sampling.Options{Replace: c.replace})
		if err != nil {
			b.Fatal(err)
		}
		for _, conc := range []int{1, 2} {
			name := fmt.Sprintf("nodes=%d/edges=%d/edge-order=%s/fanouts=15,10,5/batch=1024/replace=%t/concurrent=%d", g.NumNodes(), g.NumEdges(), c.order, c.replace, conc)
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				var edges int64
				var mu sync.Mutex
				i := 0
				for b.Loop() {
					var wg sync.WaitGroup
					for c := range conc {
						wg.Add(1)
						go func(seeds []int32, seed uint64) {
							defer wg.Done()
							mb, err := m.Sample(seeds, seed)
							if err != nil {
								b.Error(err)
								return
							}
							mu.Lock()
							edges += int64(mb.NumEdges())
							mu.Unlock()
						}(batch(i+c), uint64(i+c))
					}
					wg.Wait()
					i += conc
				}
				b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
				b.ReportMetric(float64(edges)/float64(i), "edges/batch")
			})
		}
	}
}

// BenchmarkLayer measures the two steps of one layer apart: sampling 15
// in-edges of each of 70,000 seeds (the first layer of a 1024-seed batch
// with fan-outs 15, 10, 5), and ToBlock on the result.
func BenchmarkLayer(b *testing.B) {
	g := productsSized(b)
	perm := rand.New(rand.NewPCG(1, 2)).Perm(g.NumNodes())
	seeds := make([]int32, 70000)
	for j := range seeds {
		seeds[j] = int32(perm[j])
	}
	name := fmt.Sprintf("nodes=%d/edges=%d/seeds=%d/fanout=15", g.NumNodes(), g.NumEdges(), len(seeds))
	b.Run("step=sample/"+name, func(b *testing.B) {
		b.ReportAllocs()
		edges := 0
		for i := 0; b.Loop(); i++ {
			f, err := sampling.SampleNeighbors(g, seeds, 15, sampling.Options{}, uint64(i))
			if err != nil {
				b.Fatal(err)
			}
			edges += f.NumEdges()
		}
		b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
	})
	f, err := sampling.SampleNeighbors(g, seeds, 15, sampling.Options{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("step=toblock/"+name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sampling.ToBlock(f); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(f.NumEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
	})
}
