package spmm

import (
	"fmt"

	"github.com/gnngo/gnn/internal/bcast"
)

// layout is how a call reads its operands, resolved once from the plan so
// that kernels can pick a fast path.
type layout struct {
	op     Op
	outLen int
	lhsLen int   // elements in one u row (when the op reads u)
	rhsLen int   // elements in one e row (when the op reads e)
	lhsOff []int // nil: element k of the message reads u element k
	rhsOff []int // nil: element k reads e element k
	// block > 0 means u is read in place (lhsOff nil) and e holds one scalar
	// per block of block consecutive output elements: element k reads e
	// element k/block. It covers a scalar edge weight (rhsLen 1) and
	// multi-head weights, (H,D) features with (H,1) weights.
	block int
}

// newLayout validates p for op and resolves its offsets. It panics on a
// plan the op cannot use: the op layer builds plans from checked shapes.
func newLayout(op Op, p bcast.Plan) layout {
	if op > Div {
		panic(fmt.Sprintf("spmm: unknown op %d", op))
	}
	if p.Dot {
		panic("spmm: dot plans are not supported (SpMM has no dot message)")
	}
	if p.OutLen < 0 || p.LhsLen < 0 || p.RhsLen < 0 {
		panic(fmt.Sprintf("spmm: negative plan length (out %d, lhs %d, rhs %d)", p.OutLen, p.LhsLen, p.RhsLen))
	}
	l := layout{op: op, outLen: p.OutLen, lhsLen: p.LhsLen, rhsLen: p.RhsLen}
	if op.UsesLHS() {
		l.lhsOff = resolve(p.Trivial, p.LhsOff, p.LhsLen, p.OutLen, "lhs")
	}
	if op.UsesRHS() {
		l.rhsOff = resolve(p.Trivial, p.RhsOff, p.RhsLen, p.OutLen, "rhs")
	}
	if op.Elementwise() && l.lhsOff == nil && l.outLen > 0 && l.rhsLen > 0 && l.outLen%l.rhsLen == 0 {
		b := l.outLen / l.rhsLen
		ok := true
		for k, o := range l.rhsOff { // nil (identity) means b == 1
			if o != k/b {
				ok = false
				break
			}
		}
		if ok {
			l.block = b
		}
	}
	return l
}

// resolve checks one operand's offsets and returns them, or nil when they
// are the identity.
func resolve(trivial bool, off []int, rowLen, outLen int, side string) []int {
	if trivial {
		if rowLen != outLen {
			panic(fmt.Sprintf("spmm: trivial plan with %s row length %d but output length %d", side, rowLen, outLen))
		}
		return nil
	}
	if len(off) != outLen {
		panic(fmt.Sprintf("spmm: plan has %d %s offsets for output length %d", len(off), side, outLen))
	}
	identity := rowLen == outLen
	for k, o := range off {
		if o < 0 || o >= rowLen {
			panic(fmt.Sprintf("spmm: %s offset %d of element %d is outside a row of %d", side, o, k, rowLen))
		}
		identity = identity && o == k
	}
	if identity {
		return nil
	}
	return off
}

// checkLen panics unless a slice has the length its shape implies.
func checkLen(name string, got, rows, rowLen int) {
	if got != rows*rowLen {
		panic(fmt.Sprintf("spmm: len(%s) = %d, want %d (%d rows of %d)", name, got, rows*rowLen, rows, rowLen))
	}
}
