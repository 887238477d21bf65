package sddmm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/parallel"
)

const (
	benchNodes = 100000
	benchEdges = 10_000_000
)

var (
	benchOnce  sync.Once
	benchGraph *graph.Graph
	benchSink  float32
)

// uniformGraph returns the benchmark graph, built once per test binary.
func uniformGraph() *graph.Graph {
	benchOnce.Do(func() {
		g, err := generate.Uniform(benchNodes, benchEdges, 1)
		if err != nil {
			panic(err)
		}
		benchGraph = g
	})
	return benchGraph
}

// BenchmarkSDDMM measures the GAT and attention shapes on a uniform random
// graph in float32. GB/s counts the bytes an edge must touch: its COO
// endpoints, both operand rows and its output row; the operand rows are
// counted once per edge, as gathers, the way SpMM benchmarks count them.
func BenchmarkSDDMM(b *testing.B) {
	for _, c := range []struct {
		name   string
		op     Op
		lt, rt Target
		l, r   []int
		dim    string
	}{
		{"u_dot_v", Dot, U, V, []int{8, 8}, []int{8, 8}, "8x8"},
		{"u_dot_v", Dot, U, V, []int{64}, []int{64}, "64"},
		{"u_dot_v", Dot, U, V, []int{8, 2}, []int{8, 2}, "8x2"},
		{"u_dot_v", Dot, U, V, []int{8, 4}, []int{8, 4}, "8x4"},
		{"u_add_v", Add, U, V, []int{8, 1}, []int{8, 1}, "8x1"},
		{"u_mul_v", Mul, U, V, []int{64}, []int{64}, "64"},
		{"u_mul_e", Mul, U, E, []int{8, 8}, []int{8, 1}, "8x8,8x1"},
		{"copy_u", CopyLHS, U, V, []int{64}, nil, "64"},
	} {
		name := fmt.Sprintf("op=%s/n=%d/e=%d/dim=%s", c.name, benchNodes, benchEdges, c.dim)
		b.Run(name, func(b *testing.B) {
			g := uniformGraph()
			sc := shapeCase{c.op, c.l, c.r}
			p := sc.plan(b)
			rng := rand.New(rand.NewPCG(5, 5))
			lhs := operand[float32](rng, c.lt.Rows(g)*p.LhsLen)
			var rhs []float32
			if c.op != CopyLHS {
				rhs = operand[float32](rng, c.rt.Rows(g)*p.RhsLen)
			}
			out := make([]float32, g.NumEdges()*p.OutLen)
			perEdge := 4 * (p.OutLen + p.LhsLen)
			if c.lt != E {
				perEdge += 4 // the COO endpoint
			}
			if c.op != CopyLHS {
				perEdge += 4 * p.RhsLen
				if c.rt != E {
					perEdge += 4
				}
			}
			Forward(out, g, c.op, lhs, c.lt, rhs, c.rt, p) // fault the output in
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				Forward(out, g, c.op, lhs, c.lt, rhs, c.rt, p)
			}
			reportCPU(b, cpu0)
			reportRate(b, g.NumEdges(), perEdge)
			benchSink = out[len(out)-1]
		})
	}
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

// reportCPU reports the process CPU time per iteration since cpu0, which
// load from other processes on a shared machine disturbs less than the wall
// time.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// reportRate reports edges/s and the effective bandwidth of a kernel that
// touches perEdge bytes per edge.
func reportRate(b *testing.B, edges, perEdge int) {
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(edges)*float64(b.N)/s, "edges/s")
	b.ReportMetric(float64(edges)*float64(perEdge)*float64(b.N)/s/1e9, "GB/s")
}
