package spmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
)

// BackwardArg adds into du and de the gradients of a Max or Min SpMM with
// respect to its operands, given the arg that Forward filled and the
// gradient dOut of its output. Each output element routes dOut to the one
// edge e = (u -> v) recorded in arg (elements with arg -1 route nothing):
//
//	du[u*p.LhsLen+p.LhsOff[k]] += dmsg/du * dOut[v*p.OutLen+k]
//	de[e*p.RhsLen+p.RhsOff[k]] += dmsg/de * dOut[v*p.OutLen+k]
//
// with dmsg/du, dmsg/de = 1 for copy, 1, 1 for Add, 1, -1 for Sub, e, u for
// Mul and 1/e, -u/e² for Div (written dOut/e and -dOut*u/e²).
//
// du (len g.NumSrc()*p.LhsLen) and de (len g.NumEdges()*p.RhsLen) are
// accumulated into, not overwritten; either may be nil, and du is ignored
// for CopyE and de for CopyU. op, u, e and p are those of the forward call;
// u is read only for de of Mul and Div, e only for Mul and Div. arg and dOut
// have g.NumDst()*p.OutLen elements.
//
// The result is deterministic: du is accumulated per source row, walking its
// out-edges in increasing edge ID (g.CSR()), and de per destination row, each
// edge row by the one worker that owns its destination, so it has the same
// bits for any GOMAXPROCS. BackwardArg panics when a length does not match.
func BackwardArg[T num.Float](du, de []T, g *graph.Graph, op Op, u, e []T, p bcast.Plan, arg []int64, dOut []T) {
	l := newLayout(op, p)
	f := l.outLen
	checkLen("arg", len(arg), g.NumDst(), f)
	checkLen("dOut", len(dOut), g.NumDst(), f)
	if !op.usesU() {
		du = nil
	}
	if !op.usesE() {
		de = nil
	}
	if du != nil {
		checkLen("du", len(du), g.NumSrc(), l.lhsLen)
	}
	if de != nil {
		checkLen("de", len(de), g.NumEdges(), l.rhsLen)
	}
	scaled := op == Mul || op == Div
	if scaled && (du != nil || de != nil) {
		checkLen("e", len(e), g.NumEdges(), l.rhsLen)
	}
	if scaled && de != nil {
		checkLen("u", len(u), g.NumSrc(), l.lhsLen)
	}
	if f == 0 || (du == nil && de == nil) {
		return
	}
	var lo, ro []int
	if op.usesU() {
		lo = fullTable(l.lhsOff, f)
	}
	if op.usesE() {
		ro = fullTable(l.rhsOff, f)
	}
	if du != nil {
		backwardU(du, g.CSR(), op, e, l.lhsLen, l.rhsLen, lo, ro, arg, dOut, f)
	}
	if de != nil {
		src, _ := g.COO()
		backwardE(de, g.CSC(), src, op, u, e, l.lhsLen, l.rhsLen, lo, ro, arg, dOut, f)
	}
}

// backwardU accumulates du one source row at a time: for each out-edge
// (in increasing edge ID) it finds the output elements of the edge's
// destination that the edge won.
func backwardU[T num.Float](du []T, csr *graph.Compressed, op Op, e []T, lhsLen, rhsLen int, lo, ro []int, arg []int64, dOut []T, f int) {
	forRows(csr, f, func(rlo, rhi int) {
		for s := rlo; s < rhi; s++ {
			d := du[s*lhsLen:][:lhsLen]
			for j := csr.Indptr[s]; j < csr.Indptr[s+1]; j++ {
				v, id := int(csr.Indices[j]), csr.EIDs[j]
				av, gv := arg[v*f:][:f], dOut[v*f:][:f]
				for k, w := range av {
					if w != id {
						continue
					}
					g := gv[k]
					switch op {
					case Mul:
						g *= e[int(id)*rhsLen+ro[k]]
					case Div:
						g /= e[int(id)*rhsLen+ro[k]]
					}
					d[lo[k]] += g
				}
			}
		}
	})
}

// backwardE accumulates de one destination row at a time: each output
// element of v sends its gradient to the edge that won it, and every such
// edge ends at v, so no other worker writes its row.
func backwardE[T num.Float](de []T, csc *graph.Compressed, src []int32, op Op, u, e []T, lhsLen, rhsLen int, lo, ro []int, arg []int64, dOut []T, f int) {
	forRows(csc, f, func(rlo, rhi int) {
		for v := rlo; v < rhi; v++ {
			if csc.Indptr[v] == csc.Indptr[v+1] {
				continue
			}
			av, gv := arg[v*f:][:f], dOut[v*f:][:f]
			for k, id := range av {
				if id < 0 {
					continue
				}
				g := gv[k]
				switch op {
				case Sub:
					g = -g
				case Mul:
					g *= u[int(src[id])*lhsLen+lo[k]]
				case Div:
					x := e[int(id)*rhsLen+ro[k]]
					g = -g * u[int(src[id])*lhsLen+lo[k]] / (x * x)
				}
				de[int(id)*rhsLen+ro[k]] += g
			}
		}
	})
}
