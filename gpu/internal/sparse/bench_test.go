//go:build gnncuda

package sparse

import (
	"fmt"
	"os"
	"testing"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/cusparse"
	"github.com/gnngo/gnn/graph/generate"
)

// BenchmarkSpMM times copy_u + sum on the reference case of issue 15
// (100K nodes, 10M uniform edges, float32, dim 64) with gnn's kernels and
// with cuSPARSE's SpMM (default and CSR_ALG2) on the same CSR, on a GPU
// (it skips otherwise). Metrics: GB/s counts the bytes the kernel issues
// (row pointers and source indices once, one gathered source row per
// edge, one output row per node); unique-GB/s counts each array once (the
// least any implementation moves from memory). Compare them with
// BenchmarkCopy's device-to-device bandwidth.
func BenchmarkSpMM(b *testing.B) {
	c := benchContext(b)
	defer c.Close()
	h := bigGraph(b)
	if c.Emulated() {
		h, _ = generate.Uniform(1000, 20_000, 15)
	}
	// Both implementations run on one CSR whose rows hold increasing
	// source indices, as cuSPARSE assumes.
	h = sortedCSR(b, h)
	g, err := Upload(c, h)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Free()
	const f = 64
	n, ne := h.NumDst(), h.NumEdges()
	x, err1 := c.Alloc(4 * n * f)
	out, err2 := c.Alloc(4 * n * f)
	ones, err3 := c.Alloc(4 * ne)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			b.Fatal(err)
		}
	}
	defer c.Free(x)
	defer c.Free(out)
	defer c.Free(ones)
	if err := c.Zero(x, 4*n*f); err != nil {
		b.Fatal(err)
	}
	if err := fillOnes(c, ones, ne); err != nil {
		b.Fatal(err)
	}
	issued := float64(4*(n+1) + 4*ne + 4*ne*f + 4*n*f)
	unique := float64(4*(n+1) + 4*ne + 4*n*f + 4*n*f)
	name := fmt.Sprintf("op=copy_u/red=sum/n=%d/e=%d/dtype=float32/dim=%d", n, ne, f)
	report := func(b *testing.B, s, extra float64) {
		b.ReportMetric((issued+extra)/s/1e9, "GB/s")
		b.ReportMetric((unique+extra)/s/1e9, "unique-GB/s")
		b.ReportMetric(float64(ne)/s/1e9, "Gedges/s")
	}
	// impl=gnn runs the kernel of four elements per thread that CopyUSum
	// picks for these rows; impl=gnn-scalar the one-element kernel.
	for _, impl := range []struct {
		name string
		vec  bool
	}{{"gnn", true}, {"gnn-scalar", false}} {
		b.Run(name+"/impl="+impl.name, func(b *testing.B) {
			vectorSums = impl.vec
			defer func() { vectorSums = true }()
			ob, xb := Buf{out, n * f}, Buf{x, n * f}
			s := deviceLoop(b, c, func() error { return CopyUSum[float32](g, ob, xb, f) })
			report(b, s, 0)
		})
	}
	sp, err := cusparse.New(c)
	if err != nil {
		b.Logf("cuSPARSE not compared: %v", err)
		return
	}
	defer sp.Close()
	ptr, idx, _ := g.InEdges()
	for _, alg := range []struct {
		name string
		a    cusparse.Alg
	}{{"cusparse-default", cusparse.AlgDefault}, {"cusparse-alg2", cusparse.CSRAlg2}} {
		b.Run(name+"/impl="+alg.name, func(b *testing.B) {
			s := deviceLoop(b, c, func() error { return sp.SpMM(true, n, n, ne, ptr, idx, ones, x, out, f, alg.a) })
			report(b, s, float64(4*ne)) // cuSPARSE also reads a value per edge
		})
	}
}

// benchContext returns the first GPU, or skips the benchmark; with
// GNN_BENCH_EMULATOR=1 it returns the emulator instead (with small sizes),
// to check that the benchmarks run before a GPU is at hand. Emulator
// timings mean nothing.
func benchContext(b *testing.B) *cuda.Context {
	if os.Getenv("GNN_BENCH_EMULATOR") == "1" {
		c, err := cuda.OpenEmulator()
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	c, err := cuda.Open(0)
	if err != nil {
		b.Skipf("needs a GPU (GNN_BENCH_EMULATOR=1 runs it on the emulator): %v", err)
	}
	return c
}

// fillOnes sets n float32 values at p to 1 with a host copy.
func fillOnes(c *cuda.Context, p cuda.Ptr, n int) error {
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	return c.CopyToDevice(p, unsafe.Pointer(&ones[0]), 4*n)
}

// BenchmarkCopy measures device-to-device bandwidth, the yardstick of
// BenchmarkSpMM: cuMemcpyDtoD and a copy kernel (gnn_copy_u32), GB/s
// counting bytes read plus bytes written. GPU only.
func BenchmarkCopy(b *testing.B) {
	c := benchContext(b)
	defer c.Close()
	sizes := []int{64 << 20, 1 << 30}
	if c.Emulated() {
		sizes = []int{1 << 20}
	}
	for _, size := range sizes {
		src, err1 := c.Alloc(size)
		dst, err2 := c.Alloc(size)
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		b.Run(fmt.Sprintf("impl=memcpy/bytes=%d", size), func(b *testing.B) {
			s := deviceLoop(b, c, func() error { return c.CopyDevice(dst, src, size) })
			b.ReportMetric(2*float64(size)/s/1e9, "GB/s")
		})
		b.Run(fmt.Sprintf("impl=kernel/bytes=%d", size), func(b *testing.B) {
			words := int64(size / 4)
			grid := c.Grid(words, cuda.Threads)
			s := deviceLoop(b, c, func() error {
				return c.Launch("gnn_copy_u32", grid, cuda.Dim3{X: cuda.Threads, Y: 1, Z: 1}, dst, src, words)
			})
			b.ReportMetric(2*float64(size)/s/1e9, "GB/s")
		})
		c.Free(src)
		c.Free(dst)
	}
}
