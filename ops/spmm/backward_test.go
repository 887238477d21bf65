package spmm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"gonum.org/v1/gonum/diff/fd"
)

// TestBackwardArgFiniteDifference checks BackwardArg against central
// differences of f(u, e) = <R, Forward(u, e)> for Max and Min. Operands are
// random, so messages have no ties and a step of 1e-6 does not change the
// winners; the messages are then linear in u and e (rational for Div), so
// the differences are exact up to rounding.
func TestBackwardArgFiniteDifference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	for _, tg := range testGraphs(t) {
		if tg.g.NumEdges() == 0 || tg.g.NumEdges() > 200 {
			continue // the skewed graph is covered by the reference test
		}
		for _, c := range opCases(t) {
			if c.p.OutLen > 12 {
				continue // wide rows only repeat the narrow ones, slowly
			}
			for _, red := range []Reduce{Max, Min} {
				name := fmt.Sprintf("%s/%s/%s/%s", tg.name, c.op, red, c.shape)
				checkBackwardFD(t, name, r, tg.g, c.op, red, c.p)
			}
		}
	}
}

func checkBackwardFD(t *testing.T, name string, r *rand.Rand, g *graph.Graph, op Op, red Reduce, p bcast.Plan) {
	u, e := operands[float64](r, g, op, p)
	out := make([]float64, g.NumDst()*p.OutLen)
	arg := make([]int64, len(out))
	Forward(out, g, op, red, u, e, p, arg)
	proj := kerneltest.Uniform[float64](r, len(out), -1, 1)
	f := func() float64 {
		Forward(out, g, op, red, u, e, p, nil)
		var s float64
		for i, v := range out {
			s += proj[i] * v
		}
		return s
	}
	var du, de []float64
	if u != nil {
		du = make([]float64, len(u))
	}
	if e != nil {
		de = make([]float64, len(e))
	}
	BackwardArg(du, de, g, op, u, e, p, arg, proj)
	settings := &fd.Settings{Formula: fd.Central, Step: 1e-6}
	for _, x := range []struct {
		name string
		val  []float64
		grad []float64
	}{{"du", u, du}, {"de", e, de}} {
		if x.val == nil {
			continue
		}
		saved := append([]float64(nil), x.val...)
		want := fd.Gradient(nil, func(v []float64) float64 {
			copy(x.val, v)
			return f()
		}, saved, settings)
		copy(x.val, saved)
		if i := mismatch(x.grad, want, 1e-6); i >= 0 {
			t.Errorf("%s: %s[%d] = %v, finite difference %v", name, x.name, i, x.grad[i], want[i])
		}
	}
}

func TestBackwardArgReference(t *testing.T) {
	t.Parallel()
	t.Run("float32", testBackwardArgReference[float32])
	t.Run("float64", testBackwardArgReference[float64])
}

// testBackwardArgReference checks BackwardArg against the element-by-element
// oracle on every fixture, op and plan: it must add to what du and de hold,
// leave the operand the op does not read alone, and give the same bits when
// asked for one gradient at a time.
func testBackwardArgReference[T num.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	tol := kerneltest.Tolerance[T]()
	for _, tg := range testGraphs(t) {
		for _, c := range opCases(t) {
			u, e := operands[T](r, tg.g, c.op, c.p)
			for _, red := range []Reduce{Max, Min} {
				name := fmt.Sprintf("%s/%s/%s/%s", tg.name, c.op, red, c.shape)
				out := make([]T, tg.g.NumDst()*c.p.OutLen)
				arg := make([]int64, len(out))
				Forward(out, tg.g, c.op, red, u, e, c.p, arg)
				dOut := kerneltest.Uniform[T](r, len(out), -1, 1)
				wantU, wantE := refBackwardArg(tg.g, c.op, u, e, c.p, arg, dOut)
				du := ones[T](tg.g.NumSrc() * c.p.LhsLen)
				de := ones[T](tg.g.NumEdges() * c.p.RhsLen)
				BackwardArg(du, de, tg.g, c.op, u, e, c.p, arg, dOut)
				for i := range wantU {
					wantU[i]++
				}
				for i := range wantE {
					wantE[i]++
				}
				if i := mismatch(du, wantU, tol); i >= 0 {
					t.Errorf("%s: du[%d] = %v, want %v", name, i, du[i], wantU[i])
				}
				if i := mismatch(de, wantE, tol); i >= 0 {
					t.Errorf("%s: de[%d] = %v, want %v", name, i, de[i], wantE[i])
				}

				du0, de0 := make([]T, len(du)), make([]T, len(de))
				BackwardArg(du0, de0, tg.g, c.op, u, e, c.p, arg, dOut)
				du1, de1 := make([]T, len(du)), make([]T, len(de))
				BackwardArg(du1, nil, tg.g, c.op, u, e, c.p, arg, dOut)
				BackwardArg(nil, de1, tg.g, c.op, u, e, c.p, arg, dOut)
				if i := mismatch(du1, du0, 0); i >= 0 {
					t.Errorf("%s: du alone differs at %d", name, i)
				}
				if i := mismatch(de1, de0, 0); i >= 0 {
					t.Errorf("%s: de alone differs at %d", name, i)
				}
			}
		}
	}
}

func ones[T num.Float](n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = 1
	}
	return x
}
