//go:build gnncuda

package dense

import (
	"fmt"
	"os"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cublas"
	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// BenchmarkMatMul times the three MatMul modes and SumRows in float32 on
// the first layer of the products-sized GAT (2.4M rows, 100 inputs, 8
// heads of 8 outputs) on a GPU, the products both with dense's kernels
// (impl=kernel) and with cuBLAS (impl=cublas, where a library loads); it
// skips otherwise, or, with GNN_BENCH_EMULATOR=1, runs small sizes of the
// kernels on the emulator (timings then mean nothing). GFLOP/s counts
// 2·n·k·m per product (n·m per column sum); unique-GB/s the operands and
// the result once each.
func BenchmarkMatMul(b *testing.B) {
	n, k, m := 2_400_000, 100, 64
	var c *cuda.Context
	var err error
	if os.Getenv("GNN_BENCH_EMULATOR") == "1" {
		n, k, m = 3000, 10, 8
		c, err = cuda.OpenEmulator()
	} else if c, err = cuda.Open(0); err != nil {
		b.Skipf("needs a GPU (GNN_BENCH_EMULATOR=1 runs it on the emulator): %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var held []cuda.Ptr
	defer func() {
		for _, p := range held {
			c.Free(p)
		}
	}()
	alloc := func(bytes int) (cuda.Ptr, error) {
		p, err := c.Alloc(bytes)
		if err == nil {
			held = append(held, p)
		}
		return p, err
	}
	// Scratch for the two-pass sums, allocated once as the device's step
	// pool would recycle it.
	parts := map[int]cuda.Ptr{}
	scratch := func(bytes int) (cuda.Ptr, error) {
		if p, ok := parts[bytes]; ok {
			return p, nil
		}
		p, err := alloc(bytes)
		parts[bytes] = p
		return p, err
	}
	buf := func(elems int) cuda.Ptr {
		p, err := alloc(4 * elems)
		if err == nil {
			err = c.Zero(p, 4*elems)
		}
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	x, w, y, dy, dx, dw, s := buf(n*k), buf(k*m), buf(n*m), buf(n*m), buf(n*k), buf(k*m), buf(m)
	flops := 2 * float64(n) * float64(k) * float64(m)
	type bench struct {
		name         string
		flops, bytes float64
		run          func() error
	}
	// products returns the three products of impl, by mm.
	products := func(impl string, mm func(out, a, b cuda.Ptr, mode int) error) []bench {
		return []bench{
			{"op=product/impl=" + impl, flops, 4 * float64(n*k+k*m+n*m), func() error { return mm(y, x, w, Product) }},
			{"op=trans_b/impl=" + impl, flops, 4 * float64(n*m+k*m+n*k), func() error { return mm(dx, dy, w, TransB) }},
			{"op=trans_a/impl=" + impl, flops, 4 * float64(n*k+n*m+k*m), func() error { return mm(dw, x, dy, TransA) }},
		}
	}
	benches := products("kernel", func(out, a, b cuda.Ptr, mode int) error { return MatMul(c, F32, out, a, b, n, k, m, mode, scratch) })
	if h, err := cublas.New(c); err == nil {
		defer h.Close()
		benches = append(benches, products("cublas", func(out, a, b cuda.Ptr, mode int) error { return h.MatMul(true, out, a, b, n, k, m, mode) })...)
	} else {
		b.Logf("no cuBLAS benchmarks: %v", err)
	}
	benches = append(benches, bench{"op=sum_rows", float64(n * m), 4 * float64(n*m+m), func() error { return SumRows(c, F32, s, dy, n, m, scratch) }})
	for _, c2 := range benches {
		b.Run(fmt.Sprintf("%s/n=%d/k=%d/m=%d/dtype=float32", c2.name, n, k, m), func(b *testing.B) {
			// Sync inside the timed region: launches return before
			// the kernels finish.
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := c2.run(); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.Sync(); err != nil {
				b.Fatal(err)
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(c2.flops/sec/1e9, "GFLOP/s")
			b.ReportMetric(c2.bytes/sec/1e9, "unique-GB/s")
		})
	}
}
