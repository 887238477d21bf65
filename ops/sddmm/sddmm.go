package sddmm

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// grain is the smallest edge range worth handing to another goroutine.
const grain = 1 << 12

// Forward overwrites out, of length g.NumEdges()*p.OutLen, with one row per
// edge e = (u -> v):
//
//	out[e*p.OutLen+k] = lhs[row(lt,e)*p.LhsLen + p.LhsOff[k]] OP rhs[row(rt,e)*p.RhsLen + p.RhsOff[k]]
//
// where row(U,e) = u, row(V,e) = v, row(E,e) = e, and the offsets are k when
// p.Trivial. For Dot, p must come from bcast.New with dot set: output element
// k is the sum over j < p.ReduceLen of the products at offsets LhsOff[k]+j
// and RhsOff[k]+j. CopyLHS copies lhs and ignores rhs, which may be nil
// (p = bcast.Same(lhsShape)); CopyRHS is the mirror image.
//
// lhs must hold one row of p.LhsLen elements for every source node (lt = U),
// edge (E) or destination node (V) of g, and likewise rhs. Forward panics
// when a length does not match or op and p disagree about Dot; these are
// internal invariants that the op layer checks before calling. out must not
// overlap lhs or rhs.
func Forward[T num.Float](out []T, g *graph.Graph, op Op, lhs []T, lt Target, rhs []T, rt Target, p bcast.Plan) {
	check(out, g, op, lhs, lt, rhs, rt, p)
	if op == CopyRHS {
		op, lhs, lt, rhs, rt = CopyLHS, rhs, rt, lhs, lt
		p.LhsLen, p.RhsLen, p.LhsOff, p.RhsOff = p.RhsLen, p.LhsLen, p.RhsOff, p.LhsOff
	}
	ne := g.NumEdges()
	if ne == 0 || p.OutLen == 0 {
		return
	}
	src, dst := g.COO()
	if op == CopyLHS && lt == E && p.Trivial {
		// The output is the edge feature itself.
		parallel.For(len(out), grain*p.OutLen, func(lo, hi int) { copy(out[lo:hi], lhs[lo:hi]) })
		return
	}
	k := newKernel(out, op, lhs, index(lt, src, dst), rhs, index(rt, src, dst), p)
	parallel.For(ne, grain, k.run)
}

// index returns the per-edge row indices of a target, nil for E (row e).
func index(t Target, src, dst []int32) []int32 {
	switch t {
	case U:
		return src
	case V:
		return dst
	}
	return nil
}

// Rows returns the number of rows an operand at target t has on g: one per
// source node (U), per destination node (V) or per edge (E).
func (t Target) Rows(g *graph.Graph) int {
	switch t {
	case U:
		return g.NumSrc()
	case V:
		return g.NumDst()
	}
	return g.NumEdges()
}

// check panics unless the arguments of Forward agree with each other.
func check[T num.Float](out []T, g *graph.Graph, op Op, lhs []T, lt Target, rhs []T, rt Target, p bcast.Plan) {
	if op > Dot {
		panic(fmt.Sprintf("sddmm: unknown %v", op))
	}
	if (op == Dot) != p.Dot {
		panic(fmt.Sprintf("sddmm: op %v with a plan whose Dot is %v", op, p.Dot))
	}
	if p.Dot && p.ReduceLen < 1 {
		panic(fmt.Sprintf("sddmm: dot plan with reduce length %d", p.ReduceLen))
	}
	if want := g.NumEdges() * p.OutLen; len(out) != want {
		panic(fmt.Sprintf("sddmm: out has length %d, want %d (%d edges × %d)", len(out), want, g.NumEdges(), p.OutLen))
	}
	useL, useR := op != CopyRHS, op != CopyLHS
	if p.Trivial {
		if (useL && p.LhsLen != p.OutLen) || (useR && p.RhsLen != p.OutLen) || p.Dot {
			panic(fmt.Sprintf("sddmm: trivial plan with lengths lhs %d, rhs %d, out %d", p.LhsLen, p.RhsLen, p.OutLen))
		}
	} else if (useL && len(p.LhsOff) != p.OutLen) || (useR && len(p.RhsOff) != p.OutLen) {
		panic(fmt.Sprintf("sddmm: plan has %d lhs and %d rhs offsets for %d outputs", len(p.LhsOff), len(p.RhsOff), p.OutLen))
	}
	if useL {
		checkOperand("lhs", lhs, g, lt, p.LhsLen)
	}
	if useR {
		checkOperand("rhs", rhs, g, rt, p.RhsLen)
	}
}

// checkOperand panics unless x holds rowLen elements for every row of
// target t in g.
func checkOperand[T num.Float](name string, x []T, g *graph.Graph, t Target, rowLen int) {
	if t > V {
		panic(fmt.Sprintf("sddmm: %s has unknown %v", name, t))
	}
	n := t.Rows(g)
	if want := n * rowLen; len(x) != want {
		panic(fmt.Sprintf("sddmm: %s on %v has length %d, want %d (%d rows × %d)", name, t, len(x), want, n, rowLen))
	}
}
