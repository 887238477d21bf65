package sddmm

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/gnngo/gnn/graph/generate"
)

func BenchmarkExp(b *testing.B) {
	n := 100000
	g, _ := generate.Uniform(n, 2_000_000, 1)
	for _, c := range []shapeCase{{Dot, []int{8, 8}, []int{8, 8}}, {Add, []int{8, 1}, []int{8, 1}}, {Mul, []int{64}, []int{64}}, {CopyLHS, []int{64}, nil}} {
		p := c.plan(b)
		rng := rand.New(rand.NewPCG(5, 5))
		lhs := operand[float32](rng, n*p.LhsLen)
		rhs := operand[float32](rng, n*p.RhsLen)
		out := make([]float32, g.NumEdges()*p.OutLen)
		for _, v := range []int{0, 1, 8, 16, 32, 64, 256} {
			b.Run(fmt.Sprintf("%v/%v/v=%d", c.op, c.l, v), func(b *testing.B) {
				expNoTouch = v == 0
				expStep = v
				if v == 1 {
					expStep = 0
				}
				c0 := cpuNow()
				for b.Loop() {
					Forward(out, g, c.op, lhs, U, rhs, V, p)
				}
				b.ReportMetric(float64(cpuNow()-c0)/float64(b.N)/float64(g.NumEdges()), "cpu-ns/edge")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g.NumEdges()), "ns/edge")
			})
		}
	}
}

func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
