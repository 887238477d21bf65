package spmm

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
)

// Forward computes a generalized sparse-dense matrix product over g and
// writes it to out, overwriting it: for every destination node v and output
// element k,
//
//	out[v*p.OutLen+k] = red over the in-edges e = (u -> v) of msg(e)[k]
//
// where, for the binary ops, msg(e)[k] = u[u*p.LhsLen+p.LhsOff[k]] OP
// e[e*p.RhsLen+p.RhsOff[k]] (both offsets k when p.Trivial), so Sub is u - e
// and Div is u / e. Here u in the index is the edge's source node and e its
// edge ID. Messages are computed and reduced on the fly, never stored.
//
// CopyU reads only u, through the plan's left-hand fields (p.LhsLen,
// p.LhsOff), and e may be nil; CopyE reads only e, through the right-hand
// fields (p.RhsLen, p.RhsOff), and u may be nil. For both, pass
// bcast.Same(shape) of the copied operand, which sets LhsLen = RhsLen =
// OutLen with identity offsets. Plans with Dot set are not supported.
//
// Lengths: out is g.NumDst()*p.OutLen, u is g.NumSrc()*p.LhsLen and e is
// g.NumEdges()*p.RhsLen (when read).
//
// A node with no in-edges gets 0 for every reducer. Mean divides the sum by
// the in-degree. Sums add the messages one edge after another in increasing
// edge ID, in the precision of T, so the result has the same bits for any
// GOMAXPROCS.
//
// For Max and Min, arg is nil or has the length of out; it receives, for
// each output element, the ID of the edge whose message won, and -1 where v
// has no in-edges. Ties go to the smallest edge ID: a later message replaces
// the current one only when strictly greater (Max) or smaller (Min), so a
// NaN message wins only when it comes first. arg is not touched for Sum and
// Mean.
//
// Forward panics when a length does not match or the plan does not fit the
// op: these are internal invariants, checked for the user by the op layer.
// out must not overlap u, e or arg.
func Forward[T num.Float](out []T, g *graph.Graph, op Op, red Reduce, u, e []T, p bcast.Plan, arg []int64) {
	l := newChecked(out, g, op, u, e, p)
	switch red {
	case Sum, Mean:
		arg = nil
	case Max, Min:
		if arg != nil {
			checkLen("arg", len(arg), g.NumDst(), l.outLen)
		}
	default:
		panic(fmt.Sprintf("spmm: unknown reducer %d", red))
	}
	if l.outLen == 0 || g.NumDst() == 0 {
		return
	}
	c := g.CSC()
	if red == Sum || red == Mean {
		sum(out, c, &l, u, e, red == Mean, nil)
		return
	}
	extreme(out, arg, c, &l, u, e, red == Max)
}

// ForwardScaled is Forward with the Sum reducer, each output row v then
// multiplied by scale[v] (len(scale) = g.NumDst()) while it is still in
// cache: GraphConv's normalisation by destination degree without a pass of
// its own. Rows are scaled after their sums, so the result has the bits of
// Forward followed by the multiplication.
func ForwardScaled[T num.Float](out []T, g *graph.Graph, op Op, u, e []T, p bcast.Plan, scale []T) {
	l := newChecked(out, g, op, u, e, p)
	checkLen("scale", len(scale), g.NumDst(), 1)
	if l.outLen == 0 || g.NumDst() == 0 {
		return
	}
	sum(out, g.CSC(), &l, u, e, false, scale)
}

// SumRange is Forward with the Sum reducer for the destinations lo to hi-1
// only: out holds their (hi-lo)*p.OutLen values, with Forward's bits. A
// caller that sums a large graph a range of destinations at a time needs
// scratch for one range, not for all of them. It panics when the range is
// outside [0, g.NumDst()] or a length does not match.
func SumRange[T num.Float](out []T, g *graph.Graph, lo, hi int, op Op, u, e []T, p bcast.Plan) {
	if lo < 0 || hi > g.NumDst() || lo > hi {
		panic(fmt.Sprintf("spmm: SumRange: destinations [%d, %d) outside [0, %d]", lo, hi, g.NumDst()))
	}
	l := newLayout(op, p)
	checkLen("out", len(out), hi-lo, l.outLen)
	if op.UsesLHS() {
		checkLen("u", len(u), g.NumSrc(), l.lhsLen)
	}
	if op.UsesRHS() {
		checkLen("e", len(e), g.NumEdges(), l.rhsLen)
	}
	if l.outLen == 0 || lo == hi {
		return
	}
	// The rows' view: Indptr's entries lo..hi, which index Indices and
	// EIDs as a whole, as every kernel reads them.
	c := g.CSC()
	sub := &graph.Compressed{Indptr: c.Indptr[lo : hi+1], Indices: c.Indices, EIDs: c.EIDs, Ordered: c.Ordered}
	sum(out, sub, &l, u, e, false, nil)
}

// newChecked returns the layout of op and p after checking the lengths of
// out and the operands op reads against g.
func newChecked[T num.Float](out []T, g *graph.Graph, op Op, u, e []T, p bcast.Plan) layout {
	l := newLayout(op, p)
	checkLen("out", len(out), g.NumDst(), l.outLen)
	if op.UsesLHS() {
		checkLen("u", len(u), g.NumSrc(), l.lhsLen)
	}
	if op.UsesRHS() {
		checkLen("e", len(e), g.NumEdges(), l.rhsLen)
	}
	return l
}
