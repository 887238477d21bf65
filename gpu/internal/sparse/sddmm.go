//go:build gnncuda

package sparse

import (
	"fmt"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/ops/sddmm"
)

// SDDMM computes sddmm.Forward on the device: for every edge e = (u -> v)
// and output element k,
//
//	out[e*p.OutLen+k] = lhs[row(lt,e)*p.LhsLen + p.LhsOff[k]] OP rhs[row(rt,e)*p.RhsLen + p.RhsOff[k]]
//
// with row(U,e) = u, row(V,e) = v, row(E,e) = e, and Dot summing p.ReduceLen
// products in order. CopyLHS reads only lhs and CopyRHS only rhs.
func SDDMM[T num.Float](g *Graph, out Buf, op sddmm.Op, lhs Buf, lt sddmm.Target, rhs Buf, rt sddmm.Target, p bcast.Plan) error {
	b, err := checkSDDMM(g, op, lhs, lt, rhs, rt, p)
	if err != nil {
		return err
	}
	if err := checkBuf("out", out, g.s.numEdges, p.OutLen); err != nil {
		return err
	}
	n := int64(g.s.numEdges) * int64(p.OutLen)
	return launch[T](g.s.c, "gnn_sddmm", n, out.Ptr, g.rows(lt), g.rows(rt), lhs.Ptr, rhs.Ptr, int32(op), int64(g.s.numEdges), b)
}

// SDDMMBackward overwrites dlhs and drhs with the gradients of an SDDMM (of
// the same g, op, operands, targets and p) with respect to its operands,
// given dOut (g.NumEdges()*p.OutLen elements). Pass a Buf with Len 0 for a
// gradient not wanted; dlhs is not computed for CopyRHS, nor drhs for
// CopyLHS. Each row of a node operand sums over the edges that read it
// (out-edges for U, in-edges for V, in increasing edge ID), one element
// per thread: no atomics.
func SDDMMBackward[T num.Float](g *Graph, dlhs, drhs Buf, op sddmm.Op, lhs Buf, lt sddmm.Target, rhs Buf, rt sddmm.Target, p bcast.Plan, dOut Buf) error {
	b, err := checkSDDMM(g, op, lhs, lt, rhs, rt, p)
	if err != nil {
		return err
	}
	if err := checkBuf("dOut", dOut, g.s.numEdges, p.OutLen); err != nil {
		return err
	}
	sides := []struct {
		d      Buf
		use    bool
		x, y   Buf
		xt, yt sddmm.Target
		xlen   int
		name   string
	}{
		{dlhs, op != sddmm.CopyRHS, lhs, rhs, lt, rt, p.LhsLen, "dlhs"},
		{drhs, op != sddmm.CopyLHS, rhs, lhs, rt, lt, p.RhsLen, "drhs"},
	}
	for side, s := range sides {
		if s.d.Len == 0 || !s.use {
			continue
		}
		if err := checkBuf(s.name, s.d, g.targetRows(s.xt), s.xlen); err != nil {
			return err
		}
		ptr, eid := cuda.Ptr(0), cuda.Ptr(0)
		switch s.xt {
		case sddmm.U:
			ptr, eid = g.out.ptr, g.out.eid
		case sddmm.V:
			ptr, eid = g.in.ptr, g.in.eid
		}
		rows := int64(g.targetRows(s.xt))
		if err := launch[T](g.s.c, "gnn_sddmm_grad", rows*int64(s.xlen), s.d.Ptr, ptr, eid, rows, s.x.Ptr, s.y.Ptr, g.rows(s.yt), dOut.Ptr, int32(op), int32(side), b); err != nil {
			return err
		}
	}
	return nil
}

// rows returns the per-edge row array of a target: the edges' sources for
// U, destinations for V, and the zero Ptr (the edge itself) for E.
func (g *Graph) rows(t sddmm.Target) cuda.Ptr {
	switch t {
	case sddmm.U:
		return g.src
	case sddmm.V:
		return g.dst
	}
	return 0
}

// targetRows returns the number of rows an operand on target t has.
func (g *Graph) targetRows(t sddmm.Target) int {
	switch t {
	case sddmm.U:
		return g.numSrc
	case sddmm.V:
		return g.numDst
	}
	return g.s.numEdges
}

// checkSDDMM checks an SDDMM's op, targets, plan and operands, and returns
// the packed plan.
func checkSDDMM(g *Graph, op sddmm.Op, lhs Buf, lt sddmm.Target, rhs Buf, rt sddmm.Target, p bcast.Plan) ([]int32, error) {
	if err := g.live(); err != nil {
		return nil, err
	}
	if op > sddmm.Dot {
		return nil, fmt.Errorf("sparse: unknown SDDMM op %v", op)
	}
	if (op == sddmm.Dot) != p.Dot {
		return nil, fmt.Errorf("sparse: SDDMM %v with a plan whose Dot is %v", op, p.Dot)
	}
	if lt > sddmm.V || rt > sddmm.V {
		return nil, fmt.Errorf("sparse: unknown SDDMM targets %v, %v", lt, rt)
	}
	if op != sddmm.CopyRHS {
		if err := checkBuf("lhs on "+lt.String(), lhs, g.targetRows(lt), p.LhsLen); err != nil {
			return nil, err
		}
	}
	if op != sddmm.CopyLHS {
		if err := checkBuf("rhs on "+rt.String(), rhs, g.targetRows(rt), p.RhsLen); err != nil {
			return nil, err
		}
	}
	return packBcast(p)
}
