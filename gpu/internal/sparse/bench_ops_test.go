//go:build gnncuda

package sparse

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/sddmm"
)

var (
	benchGraphOnce sync.Once
	benchGraphHost *graph.Graph
)

// benchUpload returns the reference graph of the device benchmarks on the
// device of a GPU (or, with GNN_BENCH_EMULATOR=1, a small one on the
// emulator): 100K nodes and 10M uniform edges, numbered by destination as
// training numbers them (graph.ReorderEdges in gnnbench). The host graph
// is built once per process.
func benchUpload(b *testing.B) (*Graph, *graph.Graph) {
	c := benchContext(b)
	b.Cleanup(func() { c.Close() })
	var h *graph.Graph
	if c.Emulated() {
		h, _ = generate.Uniform(1000, 20_000, 15)
		h = sortedCSR(b, h)
	} else {
		benchGraphOnce.Do(func() { benchGraphHost = sortedCSR(b, bigGraph(b)) })
		h = benchGraphHost
	}
	g, err := Upload(c, h)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Free() })
	return g, h
}

// timeLoop runs f b.N times, waits for the device and reports GB/s for
// bytes per call (the least the op must move: each array once) and edges
// per second.
func timeLoop(b *testing.B, g *Graph, bytes float64, f func() error) {
	s := deviceLoop(b, g.Context(), f)
	b.ReportMetric(bytes/s/1e9, "unique-GB/s")
	b.ReportMetric(float64(g.NumEdges())/s/1e9, "Gedges/s")
}

// BenchmarkSDDMM times u_dot_v (dim 64, float32; link prediction's score)
// and its backward on the reference graph. unique-GB/s counts both node
// tables, the edge arrays and the per-edge output (or its gradient) once.
func BenchmarkSDDMM(b *testing.B) {
	g, h := benchUpload(b)
	const f = 64
	n, ne := h.NumDst(), h.NumEdges()
	r := rand.New(rand.NewPCG(1, 2))
	x := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, n*f, -1, 1))
	y := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, n*f, -1, 1))
	out := filled[float32](b, g.Context(), ne)
	dx, dy := filled[float32](b, g.Context(), n*f), filled[float32](b, g.Context(), n*f)
	p := mustPlan(b, []int{f}, []int{f}, true)
	name := fmt.Sprintf("op=u_dot_v/n=%d/e=%d/dtype=float32/dim=%d", n, ne, f)
	edges := float64(4*(n+1) + 8*ne) // row pointers, sources and edge IDs
	b.Run(name+"/pass=forward", func(b *testing.B) {
		timeLoop(b, g, edges+float64(2*4*n*f+4*ne), func() error {
			return SDDMM[float32](g, out, sddmm.Dot, x, sddmm.U, y, sddmm.V, p)
		})
	})
	b.Run(name+"/pass=backward", func(b *testing.B) {
		timeLoop(b, g, 2*edges+float64(4*4*n*f+4*ne), func() error {
			return SDDMMBackward[float32](g, dx, dy, sddmm.Dot, x, sddmm.U, y, sddmm.V, p, out)
		})
	})
}

// BenchmarkEdgeSoftmax times the edge softmax by destination of 8 heads
// (float32) and its backward on the reference graph. unique-GB/s counts
// the scores and the output once (backward: y, dy and the gradient).
func BenchmarkEdgeSoftmax(b *testing.B) {
	g, h := benchUpload(b)
	const w = 8
	n, ne := h.NumDst(), h.NumEdges()
	r := rand.New(rand.NewPCG(3, 4))
	score := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, ne*w, -5, 5))
	y := filled[float32](b, g.Context(), ne*w)
	dy := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, ne*w, -1, 1))
	ds := filled[float32](b, g.Context(), ne*w)
	name := fmt.Sprintf("n=%d/e=%d/dtype=float32/heads=%d", n, ne, w)
	edges := float64(4*(n+1) + 4*ne) // row pointers and edge IDs
	b.Run(name+"/pass=forward", func(b *testing.B) {
		timeLoop(b, g, edges+float64(2*4*ne*w), func() error {
			return EdgeSoftmax[float32](g, y, edgesoftmax.ByDst, score, w)
		})
	})
	b.Run(name+"/pass=backward", func(b *testing.B) {
		timeLoop(b, g, edges+float64(3*4*ne*w), func() error {
			return EdgeSoftmaxBackward[float32](g, ds, edgesoftmax.ByDst, y, dy, w)
		})
	})
}

// BenchmarkAttention times GAT's fused attention (LeakyReLU(el[u] + er[v])
// and the softmax by destination, 8 heads, float32) and its backward on
// the reference graph. unique-GB/s counts el, er, the edge arrays and the
// per-edge output once (backward: y, dy and the gradient).
func BenchmarkAttention(b *testing.B) {
	g, h := benchUpload(b)
	const w = 8
	n, ne := h.NumDst(), h.NumEdges()
	r := rand.New(rand.NewPCG(5, 6))
	el := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, n*w, -3, 3))
	er := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, n*w, -3, 3))
	y := filled[float32](b, g.Context(), ne*w)
	dy := toDevice(b, g.Context(), kerneltest.Uniform[float32](r, ne*w, -1, 1))
	ds := filled[float32](b, g.Context(), ne*w)
	name := fmt.Sprintf("n=%d/e=%d/dtype=float32/heads=%d", n, ne, w)
	edges := float64(4*(n+1)+8*ne) + float64(2*4*n*w) // row pointers, sources, edge IDs, el, er
	b.Run(name+"/pass=forward", func(b *testing.B) {
		timeLoop(b, g, edges+float64(4*ne*w), func() error {
			return Attention[float32](g, y, el, er, 0.2, w)
		})
	})
	b.Run(name+"/pass=backward", func(b *testing.B) {
		timeLoop(b, g, edges+float64(3*4*ne*w), func() error {
			return AttentionBackward[float32](g, ds, el, er, 0.2, y, dy, w)
		})
	})
}

// deviceLoop runs f b.N times and waits for the device inside the timed
// region (launches return before the kernels finish: a b.Loop would stop
// the clock before the last ones ran), and returns the seconds per call.
func deviceLoop(b *testing.B, c *cuda.Context, f func() error) float64 {
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Sync(); err != nil {
		b.Fatal(err)
	}
	return b.Elapsed().Seconds() / float64(b.N)
}
