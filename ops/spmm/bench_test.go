package spmm

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
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
)

// Benchmarks run float32 (the dtype of GNN training) on one uniform random
// graph of 100k nodes and 10M edges, built once (about a second) and shared.
// Besides ns/op they report edges/s; GB/s, an effective bandwidth over the
// bytes a call must touch at least: the gathered rows (E x row bytes; u is
// 25.6 MB at F=64, about the size of the last-level cache), the output, the
// CSC index arrays it reads (Indptr, Indices, and EIDs when edge rows are
// read), edge weights and args; and cpu-ms/op, the CPU time of the process
// per call, which on a machine shared with other work varies less than
// wall time. BenchmarkMemCopy gives the machine's copy bandwidth to compare
// with.
//
//	go test -run '^$' -bench 'BenchmarkSpMM/op=copy_u/red=sum/n=100000/e=10000000/dim=64$' ./ops/spmm
//
// runs the reference case only. The workers=1 variants set GOMAXPROCS to 1
// for the parallel speed-up, and the impl=go variants turn the assembly
// kernels off.

const (
	benchNodes = 100_000
	benchEdges = 10_000_000
	benchSize  = 4 // bytes per float32
)

var bench struct {
	once sync.Once
	g    *graph.Graph
	err  error
	sink float32
}

func benchGraph(b *testing.B) *graph.Graph {
	b.Helper()
	bench.once.Do(func() {
		bench.g, bench.err = generate.Uniform(benchNodes, benchEdges, 1)
		if bench.err == nil {
			bench.g.CSC()
		}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.g
}

// benchCase is one SpMM configuration of the benchmarks.
type benchCase struct {
	op       Op
	red      Reduce
	lhs, rhs []int // feature shapes of u and e; rhs nil for copy_u
	workers  int   // 0: GOMAXPROCS as set
	pureGo   bool  // without the assembly kernels
	// backward runs the kernel on the reversed graph, through the CSR
	// view: the gradient of u_mul_e with respect to u (and of u_dot_v
	// with respect to either side), with edge weights read at random.
	backward bool
}

func (c benchCase) name() string {
	opName := "copy_u"
	if c.op == Mul {
		opName = "u_mul_e"
	}
	s := fmt.Sprintf("op=%s/red=%s/n=%d/e=%d/", opName, c.red, benchNodes, benchEdges)
	if c.workers > 0 {
		s += fmt.Sprintf("workers=%d/", c.workers)
	}
	if c.pureGo {
		s += "impl=go/"
	}
	if c.backward {
		s += "dir=bwd/"
	}
	s += "dim=" + kerneltest.ShapeName(c.lhs)
	if c.rhs != nil {
		s += "/edim=" + kerneltest.ShapeName(c.rhs)
	}
	return s
}

var benchCases = []benchCase{
	{op: CopyU, red: Sum, lhs: []int{16}},
	{op: CopyU, red: Sum, lhs: []int{64}},
	{op: CopyU, red: Sum, lhs: []int{256}},
	{op: CopyU, red: Sum, lhs: []int{64}, workers: 1},
	{op: CopyU, red: Sum, lhs: []int{64}, pureGo: true},
	{op: CopyU, red: Max, lhs: []int{64}},
	{op: Mul, red: Sum, lhs: []int{64}, rhs: []int{1}},
	{op: Mul, red: Sum, lhs: []int{64}, rhs: []int{1}, workers: 1},
	{op: Mul, red: Sum, lhs: []int{64}, rhs: []int{1}, pureGo: true},
	{op: Mul, red: Sum, lhs: []int{8, 8}, rhs: []int{8, 1}},
	{op: Mul, red: Sum, lhs: []int{64}, rhs: []int{1}, backward: true},
	{op: Mul, red: Sum, lhs: []int{8, 8}, rhs: []int{8, 1}, backward: true},
	// GAT's narrow heads: a weight per head of 2 or 4 columns, rows of
	// 16 and 32 floats.
	{op: Mul, red: Sum, lhs: []int{8, 2}, rhs: []int{8, 1}},
	{op: Mul, red: Sum, lhs: []int{8, 4}, rhs: []int{8, 1}},
	{op: Mul, red: Sum, lhs: []int{8, 2}, rhs: []int{8, 1}, backward: true},
	{op: Mul, red: Sum, lhs: []int{8, 4}, rhs: []int{8, 1}, backward: true},
}

func BenchmarkSpMM(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name(), func(b *testing.B) {
			g := benchGraph(b)
			if c.backward {
				g = g.Reverse()
				g.CSC()
			}
			p := planFor(b, c.op, c.lhs, c.rhs)
			r := rand.New(rand.NewPCG(1, 2))
			u, e := operands[float32](r, g, c.op, p)
			out := make([]float32, g.NumDst()*p.OutLen)
			var arg []int64
			if c.red == Max || c.red == Min {
				arg = make([]int64, len(out))
			}
			bytes := benchBytes(g, c.op, c.red, p)
			if c.workers > 0 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.workers))
			}
			if c.pureGo {
				saved := useAVX2
				useAVX2 = false
				defer func() { useAVX2 = saved }()
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				Forward(out, g, c.op, c.red, u, e, p, arg)
			}
			reportThroughput(b, bytes, g.NumEdges(), cpu0)
			bench.sink += out[len(out)-1]
		})
	}
}

// BenchmarkBackwardArg times the gradient of copy_u max with respect to u:
// every out-edge of every source checks its destination's arg row.
func BenchmarkBackwardArg(b *testing.B) {
	const f = 64
	b.Run(fmt.Sprintf("op=copy_u/red=max/n=%d/e=%d/dim=%d", benchNodes, benchEdges, f), func(b *testing.B) {
		g := benchGraph(b)
		g.CSR()
		p := bcast.Same([]int{f})
		r := rand.New(rand.NewPCG(3, 4))
		u := kerneltest.Uniform[float32](r, g.NumSrc()*f, -1, 1)
		out := make([]float32, g.NumDst()*f)
		arg := make([]int64, len(out))
		Forward(out, g, CopyU, Max, u, nil, p, arg)
		dOut := kerneltest.Uniform[float32](r, len(out), -1, 1)
		du := make([]float32, len(u))
		// Per out-edge: its arg row, its dOut row, Indices and EIDs; plus
		// du and Indptr once.
		bytes := int64(g.NumEdges())*(f*(8+benchSize)+4+8) + int64(len(du))*benchSize + int64(g.NumSrc()+1)*8
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			BackwardArg(du, nil, g, CopyU, u, nil, p, arg, dOut)
		}
		reportThroughput(b, bytes, g.NumEdges(), cpu0)
		bench.sink += du[0]
	})
}

// BenchmarkMemCopy copies a large buffer, on one goroutine (workers=1) and
// split over GOMAXPROCS goroutines: the memory bandwidth the SpMM numbers
// compare with. GB/s counts bytes read plus bytes written.
func BenchmarkMemCopy(b *testing.B) {
	const size = 256 << 20
	src := make([]byte, size)
	dst := make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	for _, workers := range []int{1, 0} {
		name := fmt.Sprintf("bytes=%d", size)
		if workers == 1 {
			name = "workers=1/" + name
		}
		b.Run(name, func(b *testing.B) {
			w := workers
			if w == 0 {
				w = runtime.GOMAXPROCS(0)
			}
			bounds := parallel.Split(size, w)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				parallel.Run(w, func(i int) {
					copy(dst[bounds[i]:bounds[i+1]], src[bounds[i]:bounds[i+1]])
				})
			}
			reportThroughput(b, 2*size, 0, cpu0)
		})
	}
}

// benchBytes is the minimum number of bytes a Forward call touches.
func benchBytes(g *graph.Graph, op Op, red Reduce, p bcast.Plan) int64 {
	e, n := int64(g.NumEdges()), int64(g.NumDst())
	bytes := e*int64(p.LhsLen)*benchSize + // gathered source rows
		n*int64(p.OutLen)*benchSize + // output
		e*4 + (n+1)*8 // Indices, Indptr
	if op.UsesRHS() {
		bytes += e*8 + e*int64(p.RhsLen)*benchSize // EIDs, edge rows
	}
	if red == Max || red == Min {
		bytes += e*8 + n*int64(p.OutLen)*8 // EIDs for arg, arg
	}
	return bytes
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

func reportThroughput(b *testing.B, bytes int64, edges int, cpu0 time.Duration) {
	sec := b.Elapsed().Seconds()
	if sec == 0 {
		return
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(bytes)*float64(b.N)/sec/1e9, "GB/s")
	if edges > 0 {
		b.ReportMetric(float64(edges)*float64(b.N)/sec, "edges/s")
	}
}
