package spmm

import (
	mathbits "math/bits"

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
// bits for any GOMAXPROCS. Computing du allocates one bit per edge and output
// element, to mark the elements each edge won. BackwardArg panics when a length does not match.
func BackwardArg[T num.Float](du, de []T, g *graph.Graph, op Op, u, e []T, p bcast.Plan, arg []int64, dOut []T) {
	l := newLayout(op, p)
	f := l.outLen
	checkLen("arg", len(arg), g.NumDst(), f)
	checkLen("dOut", len(dOut), g.NumDst(), f)
	if !op.UsesLHS() {
		du = nil
	}
	if !op.UsesRHS() {
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
	if op.UsesLHS() {
		lo = fullTable(l.lhsOff, f)
	}
	if op.UsesRHS() {
		ro = fullTable(l.rhsOff, f)
	}
	if du != nil {
		backwardU(du, g, op, e, l.lhsLen, l.rhsLen, lo, ro, arg, dOut, f)
	}
	if de != nil {
		src, _ := g.COO()
		backwardE(de, g.CSC(), src, op, u, e, l.lhsLen, l.rhsLen, lo, ro, arg, dOut, f)
	}
}

// backwardU accumulates du one source row at a time. A first pass over the
// destination rows marks, in a bitmask per edge, the output elements each
// edge won (every edge ends at one destination, so one worker writes its
// mask); the second walks each source's out-edges in increasing edge ID and
// adds the gradient of every marked element, in increasing element order.
func backwardU[T num.Float](du []T, g *graph.Graph, op Op, e []T, lhsLen, rhsLen int, lo, ro []int, arg []int64, dOut []T, f int) {
	words := (f + 63) / 64
	mask := make([]uint64, g.NumEdges()*words)
	clear(mask)
	csc := g.CSC()
	forRows(csc, 1, func(rlo, rhi int) {
		for v := rlo; v < rhi; v++ {
			if csc.Indptr[v] == csc.Indptr[v+1] {
				continue
			}
			for k, id := range arg[v*f:][:f] {
				if id >= 0 {
					mask[int(id)*words+k>>6] |= 1 << (k & 63)
				}
			}
		}
	})
	csr := g.CSR()
	per := maskBatch / words
	forRows(csr, words, func(rlo, rhi int) {
		// Loads that miss the cache are issued in loops without branches,
		// so that the misses overlap: first the masks of a batch of
		// out-edges, then the gradients of the elements they won.
		var batch [maskBatch]uint64
		var p pendingGrads[T]
		for s := rlo; s < rhi; s++ {
			d := du[s*lhsLen:][:lhsLen]
			for j, end := int(csr.Indptr[s]), int(csr.Indptr[s+1]); j < end; j += per {
				n := min(per, end-j)
				ids := csr.EIDs[j : j+n]
				if words == 1 {
					for i, id := range ids {
						batch[i] = mask[id]
					}
				} else {
					for i, id := range ids {
						copy(batch[i*words:][:words], mask[int(id)*words:][:words])
					}
				}
				for i, id := range ids {
					for w, bits := range batch[i*words:][:words] {
						if bits == 0 {
							continue
						}
						at := int(csr.Indices[j+i]) * f
						for ; bits != 0; bits &= bits - 1 {
							if p.n == len(p.at) {
								p.flush(d, op, e, dOut, rhsLen, lo, ro)
							}
							k := w*64 + mathbits.TrailingZeros64(bits)
							p.at[p.n], p.k[p.n], p.id[p.n] = at+k, int32(k), int64(id)
							p.n++
						}
					}
				}
			}
			p.flush(d, op, e, dOut, rhsLen, lo, ro)
		}
	})
}

// maskBatch is the number of mask words backwardU loads ahead.
const maskBatch = 256

// pendingGrads holds output elements whose gradient goes to one du row:
// element at of dOut, column k, won by edge id.
type pendingGrads[T num.Float] struct {
	n   int
	at  [512]int
	k   [512]int32
	id  [512]int64
	val [512]T
}

// flush adds the pending gradients to d, in the order they were recorded.
func (p *pendingGrads[T]) flush(d []T, op Op, e, dOut []T, rhsLen int, lo, ro []int) {
	n := p.n
	p.n = 0
	val, at := p.val[:n], p.at[:n]
	for i := range val {
		val[i] = dOut[at[i]]
	}
	for i, gr := range val {
		k := p.k[i]
		switch op {
		case Mul:
			gr *= e[int(p.id[i])*rhsLen+ro[k]]
		case Div:
			gr /= e[int(p.id[i])*rhsLen+ro[k]]
		}
		d[lo[k]] += gr
	}
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
