package spmm

import (
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/ops/internal/binop"
)

// message writes into msg (len outLen) the message of one edge whose source
// row is l and edge row r; lo and ro are the offset tables of l and r from
// layout.tables: nil means the identity, and a binary op has both nil or
// both set. Only the operands the op reads are touched.
func message[T num.Float](msg, l, r []T, op Op, lo, ro []int) {
	switch op {
	case CopyU:
		if lo == nil {
			copy(msg, l[:len(msg)])
			return
		}
		lo = lo[:len(msg)]
		for k, o := range lo {
			msg[k] = l[o]
		}
		return
	case CopyE:
		if ro == nil {
			copy(msg, r[:len(msg)])
			return
		}
		ro = ro[:len(msg)]
		for k, o := range ro {
			msg[k] = r[o]
		}
		return
	}
	if lo == nil && ro == nil {
		binaryIdentity(msg, l[:len(msg)], r[:len(msg)], op)
		return
	}
	binop.Gather(op, msg, l, lo, r, ro)
}

// binaryIdentity writes l OP r into msg, all three of one length.
func binaryIdentity[T num.Float](msg, l, r []T, op Op) {
	l, r = l[:len(msg)], r[:len(msg)]
	switch op {
	case Add:
		for k := range msg {
			msg[k] = l[k] + r[k]
		}
	case Sub:
		for k := range msg {
			msg[k] = l[k] - r[k]
		}
	case Mul:
		for k := range msg {
			msg[k] = l[k] * r[k]
		}
	case Div:
		for k := range msg {
			msg[k] = l[k] / r[k]
		}
	}
}

// addBinaryIdentity adds l OP r to o, all three of one length: the fused
// message and sum of the same-shape case.
func addBinaryIdentity[T num.Float](o, l, r []T, op Op) {
	l, r = l[:len(o)], r[:len(o)]
	switch op {
	case Add:
		for k := range o {
			o[k] += l[k] + r[k]
		}
	case Sub:
		for k := range o {
			o[k] += l[k] - r[k]
		}
	case Mul:
		for k := range o {
			o[k] += l[k] * r[k]
		}
	case Div:
		for k := range o {
			o[k] += l[k] / r[k]
		}
	}
}

// tables returns the offset tables message takes: the layout's own, except
// that a binary op with one operand read in place gets an identity table for
// it, so the message loop indexes both through tables.
func (l *layout) tables() (lo, ro []int) {
	lo, ro = l.lhsOff, l.rhsOff
	if l.op.Elementwise() && (lo != nil || ro != nil) {
		lo, ro = fullTable(lo, l.outLen), fullTable(ro, l.outLen)
	}
	return lo, ro
}

// identityTable holds 0, 1, 2, ... for operands read in place next to one
// read through offsets; it grows on demand and is never written afterwards.
var identityTable = func() []int {
	t := make([]int, 1024)
	for k := range t {
		t[k] = k
	}
	return t
}()

// fullTable returns off, or an identity table of length n when off is nil.
func fullTable(off []int, n int) []int {
	if off != nil {
		return off
	}
	if n <= len(identityTable) {
		return identityTable[:n]
	}
	t := make([]int, n)
	for k := range t {
		t[k] = k
	}
	return t
}
