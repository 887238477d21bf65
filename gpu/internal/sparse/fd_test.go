//go:build gnncuda

package sparse

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cudatest"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// fdCheck compares the analytic gradient grad(x, r) of f(x) = <r, fwd(x)>
// with central differences, in float64, at every element of x.
func fdCheck(t *testing.T, name string, x []float64, outLen int, fwd func(x []float64) []float64, grad func(x, r []float64) []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 21))
	r := kerneltest.Uniform[float64](rng, outLen, -1, 1)
	f := func(x []float64) float64 {
		var s float64
		for i, v := range fwd(x) {
			s += r[i] * v
		}
		return s
	}
	g := grad(x, r)
	const h = 1e-6
	for i := range x {
		old := x[i]
		x[i] = old + h
		fp := f(x)
		x[i] = old - h
		fm := f(x)
		x[i] = old
		num := (fp - fm) / (2 * h)
		if math.Abs(num-g[i]) > 1e-6*math.Max(1, math.Abs(num)) {
			t.Fatalf("%s: d/dx[%d] = %v, central difference %v", name, i, g[i], num)
		}
	}
}

// TestFiniteDifferences checks the backward launchers against central
// differences of the forward launchers on the emulator, in float64, for
// SpMM (mean with broadcast weights, sum with Div, max with Sub), SDDMM
// (u_dot_v, e_div_v), edge softmax by source, and GAT attention with
// respect to el (its gradient: dScore summed over each node's out-edges).
func TestFiniteDifferences(t *testing.T) {
	c := cudatest.Emulator(t)
	h := fixtures(t)[4].G // random: self-loops and parallel edges
	g := upload(t, c, h)
	rng := rand.New(rand.NewPCG(22, 22))
	ns, nd, ne := h.NumSrc(), h.NumDst(), h.NumEdges()
	run := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	spmmCases := []struct {
		name     string
		op       spmm.Op
		red      spmm.Reduce
		lhs, rhs []int
	}{
		{"u_mul_e mean heads", spmm.Mul, spmm.Mean, []int{2, 3}, []int{2, 1}},
		{"u_div_e sum", spmm.Div, spmm.Sum, []int{4}, []int{4}},
		{"u_sub_e max outer", spmm.Sub, spmm.Max, []int{2, 1}, []int{1, 3}},
	}
	for _, tc := range spmmCases {
		p := mustPlan(t, tc.lhs, tc.rhs, false)
		u := kerneltest.Uniform[float64](rng, ns*p.LhsLen, -1, 1)
		e := kerneltest.Uniform[float64](rng, ne*p.RhsLen, 1, 2)
		fwd := func(u, e []float64) ([]float64, Buf) {
			out := filled[float64](t, c, nd*p.OutLen)
			arg := filled[int64](t, c, nd*p.OutLen)
			if tc.red < spmm.Max {
				arg = Buf{}
			}
			run(SpMM[float64](g, out, tc.op, tc.red, toDevice(t, c, u), toDevice(t, c, e), p, arg))
			return toHost[float64](t, c, out), arg
		}
		grad := func(u, e, r []float64) ([]float64, []float64) {
			_, arg := fwd(u, e)
			du, de := filled[float64](t, c, len(u)), filled[float64](t, c, len(e))
			run(SpMMBackward[float64](g, du, de, tc.op, tc.red, toDevice(t, c, u), toDevice(t, c, e), p, arg, toDevice(t, c, r)))
			return toHost[float64](t, c, du), toHost[float64](t, c, de)
		}
		fdCheck(t, tc.name+" du", u, nd*p.OutLen,
			func(x []float64) []float64 { o, _ := fwd(x, e); return o },
			func(x, r []float64) []float64 { d, _ := grad(x, e, r); return d })
		fdCheck(t, tc.name+" de", e, nd*p.OutLen,
			func(x []float64) []float64 { o, _ := fwd(u, x); return o },
			func(x, r []float64) []float64 { _, d := grad(u, x, r); return d })
	}

	sddmmCases := []struct {
		name   string
		op     sddmm.Op
		lt, rt sddmm.Target
		p      bcast.Plan
	}{
		{"u_dot_v", sddmm.Dot, sddmm.U, sddmm.V, mustPlan(t, []int{2, 3}, []int{2, 3}, true)},
		{"e_div_v", sddmm.Div, sddmm.E, sddmm.V, mustPlan(t, []int{3}, []int{1}, false)},
	}
	for _, tc := range sddmmCases {
		p := tc.p
		l := kerneltest.Uniform[float64](rng, rowsOf(h, tc.lt)*p.LhsLen, -1, 1)
		rr := kerneltest.Uniform[float64](rng, rowsOf(h, tc.rt)*p.RhsLen, 1, 2)
		fwd := func(l, rr []float64) []float64 {
			out := filled[float64](t, c, ne*p.OutLen)
			run(SDDMM[float64](g, out, tc.op, toDevice(t, c, l), tc.lt, toDevice(t, c, rr), tc.rt, p))
			return toHost[float64](t, c, out)
		}
		grad := func(l, rr, r []float64) ([]float64, []float64) {
			dl, dr := filled[float64](t, c, len(l)), filled[float64](t, c, len(rr))
			run(SDDMMBackward[float64](g, dl, dr, tc.op, toDevice(t, c, l), tc.lt, toDevice(t, c, rr), tc.rt, p, toDevice(t, c, r)))
			return toHost[float64](t, c, dl), toHost[float64](t, c, dr)
		}
		fdCheck(t, tc.name+" dlhs", l, ne*p.OutLen, func(x []float64) []float64 { return fwd(x, rr) },
			func(x, r []float64) []float64 { d, _ := grad(x, rr, r); return d })
		fdCheck(t, tc.name+" drhs", rr, ne*p.OutLen, func(x []float64) []float64 { return fwd(l, x) },
			func(x, r []float64) []float64 { _, d := grad(l, x, r); return d })
	}

	const w = 2
	score := kerneltest.Uniform[float64](rng, ne*w, -2, 2)
	softmax := func(x []float64) []float64 {
		out := filled[float64](t, c, ne*w)
		run(EdgeSoftmax[float64](g, out, edgesoftmax.BySrc, toDevice(t, c, x), w))
		return toHost[float64](t, c, out)
	}
	fdCheck(t, "edge softmax by src", score, ne*w, softmax, func(x, r []float64) []float64 {
		ds := filled[float64](t, c, ne*w)
		run(EdgeSoftmaxBackward[float64](g, ds, edgesoftmax.BySrc, toDevice(t, c, softmax(x)), toDevice(t, c, r), w))
		return toHost[float64](t, c, ds)
	})

	el := kerneltest.Uniform[float64](rng, ns*w, -2, 2)
	er := kerneltest.Uniform[float64](rng, nd*w, -2, 2)
	attention := func(x []float64) []float64 {
		out := filled[float64](t, c, ne*w)
		run(Attention[float64](g, out, toDevice(t, c, x), toDevice(t, c, er), 0.2, w))
		return toHost[float64](t, c, out)
	}
	fdCheck(t, "attention del", el, ne*w, attention, func(x, r []float64) []float64 {
		ds := filled[float64](t, c, ne*w)
		run(AttentionBackward[float64](g, ds, toDevice(t, c, x), toDevice(t, c, er), 0.2, toDevice(t, c, attention(x)), toDevice(t, c, r), w))
		// The gradient of el: dScore summed over each source's out-edges,
		// copy_e + sum on the reverse graph.
		del := filled[float64](t, c, ns*w)
		run(SpMM[float64](g.Reverse(), del, spmm.CopyE, spmm.Sum, Buf{}, ds, bcast.Same([]int{w}), Buf{}))
		return toHost[float64](t, c, del)
	})
}
