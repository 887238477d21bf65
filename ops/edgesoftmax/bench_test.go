package edgesoftmax

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/parallel"
)

const (
	benchNodes = 100000
	benchEdges = 10_000_000
	benchHeads = 8
)

var (
	benchOnce  sync.Once
	benchGraph *graph.Graph
	sortedOnce sync.Once
	sortedG    *graph.Graph
	benchSink  float32
)

// uniformGraph returns the benchmark graph with its CSC view built, once
// per test binary.
func uniformGraph() *graph.Graph {
	benchOnce.Do(func() {
		g, err := generate.Uniform(benchNodes, benchEdges, 1)
		if err != nil {
			panic(err)
		}
		g.CSC()
		benchGraph = g
	})
	return benchGraph
}

// sortedGraph returns the benchmark graph with its edges renumbered in
// destination order (its CSC order), built once per test binary.
func sortedGraph() *graph.Graph {
	sortedOnce.Do(func() {
		c := uniformGraph().CSC()
		src := append([]int32{}, c.Indices...)
		dst := make([]int32, len(src))
		for v := range c.NumRows() {
			lo, hi := c.Row(v)
			for p := lo; p < hi; p++ {
				dst[p] = int32(v)
			}
		}
		g, err := graph.FromCOO(benchNodes, benchNodes, src, dst)
		if err != nil {
			panic(err)
		}
		g.CSC()
		sortedG = g
	})
	return sortedG
}

// BenchmarkEdgeSoftmax measures the GAT shape, one score per edge and head,
// by destination in float32, on a uniform random graph whose edge IDs are in
// random order within each destination's group (the streaming path, and
// with impl=groups the group-by-group kernels), and (order=dst) on the same
// graph with its edges renumbered in destination order, where a group's rows
// are contiguous. GB/s counts the bytes a pass must touch: an edge ID per
// edge, the score and output rows forward, y, dy and dScore backward, and the
// CSC row pointers.
//
// heads=2 and heads=4 are the narrow rows of GAT layers with few heads (the
// group kernels in every order: streaming takes multiples of 8), to be
// compared with heads=8 per byte.
func BenchmarkEdgeSoftmax(b *testing.B) {
	for _, heads := range []int{benchHeads, 4, 2} {
		for _, order := range []string{"", "/impl=groups", "/order=dst"} {
			for _, dir := range []string{"fwd", "bwd"} {
				name := fmt.Sprintf("dir=%s/n=%d/e=%d/heads=%d%s", dir, benchNodes, benchEdges, heads, order)
				b.Run(name, func(b *testing.B) {
					g := uniformGraph()
					switch order {
					case "/order=dst":
						g = sortedGraph()
					case "/impl=groups":
						defer func(s bool) { useStream = s }(useStream)
						useStream = false
					}
					benchmarkEdgeSoftmax(b, g, dir, heads)
				})
			}
		}
	}
}

func benchmarkEdgeSoftmax(b *testing.B, g *graph.Graph, dir string, heads int) {
	rng := rand.New(rand.NewPCG(1, 1))
	ne := g.NumEdges()
	score := scores[float32](rng, ne*heads, 4)
	out := make([]float32, len(score))
	Forward(out, g, ByDst, score, heads)
	dy := scores[float32](rng, len(score), 1)
	ds := make([]float32, len(score))
	Backward(ds, g, ByDst, out, dy, heads) // fault the output in
	rows := 2
	if dir == "bwd" {
		rows = 3
	}
	perEdge := 8 + 4*heads*rows
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		if dir == "fwd" {
			Forward(out, g, ByDst, score, heads)
		} else {
			Backward(ds, g, ByDst, out, dy, heads)
		}
	}
	reportCPU(b, cpu0)
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(ne)*float64(b.N)/s, "edges/s")
	bytes := float64(ne)*float64(perEdge) + 8*float64(g.NumDst()+1)
	b.ReportMetric(bytes*float64(b.N)/s/1e9, "GB/s")
	benchSink = out[len(out)-1] + ds[0]
}

// BenchmarkMemCopy is the bandwidth reference for the GB/s of the kernels: a
// 256 MiB copy split over the goroutines the kernels use, counting the bytes
// read and written.
func BenchmarkMemCopy(b *testing.B) {
	const n = 64 << 20
	src, dst := make([]float32, n), make([]float32, n)
	for i := range src {
		src[i] = float32(i)
	}
	b.Run("bytes=256MiB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parallel.For(n, 1<<16, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
		}
		b.ReportMetric(float64(2*4*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		benchSink = dst[n-1]
	})
}

// cpuTime returns the CPU time the process has used. The benchmarks report
// it per op (cpu-ms/op): on a machine shared with other work, wall time
// varies with the load, CPU time much less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	}
}
