//go:build gnncuda

package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/ops/sddmm"
)

// sddmmCases are opCases plus Dot on shapes of its own.
func sddmmCases(t *testing.T) []opCase {
	cs := opCases(t)
	for _, s := range []kerneltest.ShapeCase{
		{Name: "dot-8", LHS: []int{8}, RHS: []int{8}},
		{Name: "dot-heads", LHS: []int{3, 5}, RHS: []int{3, 5}},
		{Name: "dot-bcast", LHS: []int{1, 4}, RHS: []int{3, 4}},
		{Name: "dot-8x8", LHS: []int{8, 8}, RHS: []int{8, 8}},
		{Name: "dot-1", LHS: []int{1}, RHS: []int{1}},
	} {
		cs = append(cs, opCase{sddmm.Dot, s.Name, mustPlan(t, s.LHS, s.RHS, true)})
	}
	return cs
}

func TestSDDMM(t *testing.T) {
	t.Run("float32", testSDDMM[float32])
	t.Run("float64", testSDDMM[float64])
}

// testSDDMM checks SDDMM and SDDMMBackward against ops/sddmm's Forward and
// a naive per-edge gradient for every op, shape and pair of targets.
func testSDDMM[T num.Float](t *testing.T) {
	targets := []sddmm.Target{sddmm.U, sddmm.V, sddmm.E}
	eachGraph(t, func(c *cuda.Context, f testgraphs.Fixture, g *Graph) {
		h := f.G
		r := rand.New(rand.NewPCG(7, 7))
		for _, tc := range sddmmCases(t) {
			for _, lt := range targets {
				for _, rt := range targets {
					name := fmt.Sprintf("%s/%s/%v/%s/%v-%v", c.Name(), f.Name, tc.op, tc.shape, lt, rt)
					t.Run(name, func(t *testing.T) {
						p := tc.p
						lhs := kerneltest.Uniform[T](r, rowsOf(h, lt)*p.LhsLen, -1, 1)
						rhs := kerneltest.Uniform[T](r, rowsOf(h, rt)*p.RhsLen, 1, 2)
						want := make([]T, h.NumEdges()*p.OutLen)
						sddmm.Forward(want, h, tc.op, lhs, lt, rhs, rt, p)
						dl, dr := toDevice(t, c, lhs), toDevice(t, c, rhs)
						out := filled[T](t, c, len(want))
						if err := SDDMM[T](g, out, tc.op, dl, lt, dr, rt, p); err != nil {
							t.Fatal(err)
						}
						compare(t, "out", toHost[T](t, c, out), want)

						dOut := kerneltest.Uniform[T](r, len(want), -1, 1)
						wl, wr := sddmmGradRef(h, tc.op, lhs, lt, rhs, rt, p, dOut)
						gl, gr := filled[T](t, c, len(lhs)), filled[T](t, c, len(rhs))
						if err := SDDMMBackward[T](g, gl, gr, tc.op, dl, lt, dr, rt, p, toDevice(t, c, dOut)); err != nil {
							t.Fatal(err)
						}
						if tc.op != sddmm.CopyRHS {
							compare(t, "dlhs", toHost[T](t, c, gl), wl)
						}
						if tc.op != sddmm.CopyLHS {
							compare(t, "drhs", toHost[T](t, c, gr), wr)
						}
					})
				}
			}
		}
	})
}

func rowsOf(g *graph.Graph, t sddmm.Target) int {
	switch t {
	case sddmm.U:
		return g.NumSrc()
	case sddmm.V:
		return g.NumDst()
	}
	return g.NumEdges()
}

func rowOf(g *graph.Graph, t sddmm.Target, e int) int {
	src, dst := g.COO()
	switch t {
	case sddmm.U:
		return int(src[e])
	case sddmm.V:
		return int(dst[e])
	}
	return e
}

// sddmmGradRef is the naive gradient of an SDDMM: every edge and output
// element sends dOut through the op's derivative to the operand elements
// it read, summing in float64.
func sddmmGradRef[T num.Float](g *graph.Graph, op sddmm.Op, lhs []T, lt sddmm.Target, rhs []T, rt sddmm.Target, p bcast.Plan, dOut []T) ([]T, []T) {
	dl, dr := make([]float64, len(lhs)), make([]float64, len(rhs))
	lo, ro := offsets(p)
	for e := range g.NumEdges() {
		la := rowOf(g, lt, e) * p.LhsLen
		ra := rowOf(g, rt, e) * p.RhsLen
		for k := range p.OutLen {
			g := dOut[e*p.OutLen+k]
			for j := range p.ReduceLen {
				var gl, gr T
				li, ri := la+lo[k]+j, ra+ro[k]+j
				switch op {
				case sddmm.CopyLHS:
					gl = g
				case sddmm.CopyRHS:
					gr = g
				case sddmm.Add:
					gl, gr = g, g
				case sddmm.Sub:
					gl, gr = g, -g
				case sddmm.Mul, sddmm.Dot:
					gl, gr = g*rhs[ri], g*lhs[li]
				case sddmm.Div:
					gl, gr = g/rhs[ri], -g*lhs[li]/(rhs[ri]*rhs[ri])
				}
				if op != sddmm.CopyRHS {
					dl[li] += float64(gl)
				}
				if op != sddmm.CopyLHS {
					dr[ri] += float64(gr)
				}
			}
		}
	}
	return round[T](dl), round[T](dr)
}
