package sddmm

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/ops/spmm"
)

// BenchmarkGATv2 times GATv2's score kernels in float32 on a uniform random
// graph of 20,000 nodes and 200,000 edges (the shape of ops_test's
// BenchmarkGATv2Scores), its edges in random order (order=random, as
// generated) and renumbered by destination (order=dst, as gnnbench's
// synthetic graphs), for 8 heads of 8 and of 2: the forward (pass=scores),
// the destination-side gradients (pass=grad_dst: ZR and A, and the edge
// features' when d > 0), the sources' (pass=grad_zl), and all three
// (pass=all, a training step's worth). GB/s counts the bytes a pass must
// read: one gathered row of H*F floats per edge and pass, and the edge's H
// scores or score gradients. pass=gather is the reference: the sum of the
// gathered source rows into each destination (spmm's copy_u sum, the
// aggregation of a GAT layer), whose GB/s counts the gathered rows only.
// cpu-ms/op is the process's CPU time per op, steadier than the wall time
// on a machine shared with other work.
func BenchmarkGATv2(b *testing.B) {
	const n, e = 20_000, 200_000
	random, err := generate.Uniform(n, e, 1)
	if err != nil {
		b.Fatal(err)
	}
	byDst, _, err := random.ReorderEdges(graph.ByDst)
	if err != nil {
		b.Fatal(err)
	}
	for _, g := range []*graph.Graph{random, byDst} {
		g.CSR()
		g.CSC()
	}
	for _, o := range []struct {
		name string
		g    *graph.Graph
	}{{"random", random}, {"dst", byDst}} {
		g := o.g
		for _, hf := range [][2]int{{8, 8}, {8, 2}} {
			h, f := hf[0], hf[1]
			w := h * f
			for _, c := range []struct {
				pass string
				d    int
			}{{"gather", 0}, {"scores", 0}, {"grad_dst", 0}, {"grad_zl", 0}, {"grad_all", 0}, {"all", 0}, {"all", 4}} {
				name := fmt.Sprintf("pass=%s/order=%s/n=%d/e=%d/heads=%d/dim=%d/edim=%d", c.pass, o.name, n, e, h, f, c.d)
				b.Run(name, func(b *testing.B) {
					k, ds := newGATv2[float32](rand.New(rand.NewPCG(1, 2)), g, h, f, c.d, 0.2, false)
					s := make([]float32, e*h)
					dzl, dzr, da := make([]float32, n*w), make([]float32, n*w), make([]float32, w)
					def, dwe := make([]float32, e*c.d), make([]float32, c.d*w)
					row := float64(e) * float64(4*(w+h))        // a pass gathering rows
					masked := float64(e) * float64(4*h+(w+7)/8) // the sources' pass of GradAll
					bytes := map[string]float64{"gather": float64(e) * float64(4*w), "scores": row, "grad_dst": row,
						"grad_zl": row, "grad_all": row + masked, "all": 2*row + masked}[c.pass]
					plan := bcast.Same([]int{w})
					b.ReportAllocs()
					cpu0 := cpuTime()
					for b.Loop() {
						switch c.pass {
						case "gather":
							spmm.Forward(dzr, g, spmm.CopyU, spmm.Sum, k.ZL, nil, plan, nil)
						case "scores":
							k.Scores(s)
						case "grad_dst":
							k.GradDst(dzr, da, def, dwe, ds)
						case "grad_zl":
							k.GradZL(dzl, ds)
						case "grad_all":
							k.GradAll(dzl, dzr, da, def, dwe, ds)
						default:
							k.Scores(s)
							k.GradAll(dzl, dzr, da, def, dwe, ds)
						}
					}
					sec := b.Elapsed().Seconds()
					b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
					b.ReportMetric(float64(e)*float64(b.N)/sec, "edges/s")
					b.ReportMetric(bytes*float64(b.N)/sec/1e9, "GB/s")
					benchSink += s[0] + dzl[0] + dzr[0]
				})
			}
		}
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
