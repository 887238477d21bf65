package bcast

import (
	"fmt"
	"slices"
)

// Plan describes how two feature rows combine into an output row.
//
// For element k of the output row (0 <= k < OutLen), the operands are
// lhs[LhsOff[k]] and rhs[RhsOff[k]]; when Trivial is true both offsets are k.
// For a dot product (Dot true) the last dimension of both operands is reduced:
// output element k is the sum over j < ReduceLen of
// lhs[LhsOff[k]+j] * rhs[RhsOff[k]+j].
type Plan struct {
	Out       []int // output feature shape
	OutLen    int   // product of Out
	LhsLen    int   // elements in one lhs row
	RhsLen    int   // elements in one rhs row
	Dot       bool
	ReduceLen int // size of the reduced last dimension; 1 unless Dot
	Trivial   bool
	LhsOff    []int // nil when Trivial
	RhsOff    []int // nil when Trivial
}

// Same returns the plan for two operands of one shape, or a single operand
// (a copy message): the output row is the operand row.
func Same(shape []int) Plan {
	n := Prod(shape)
	return Plan{Out: clone(shape), OutLen: n, LhsLen: n, RhsLen: n, ReduceLen: 1, Trivial: true}
}

// New plans the broadcast of feature shapes lhs and rhs by NumPy rules: the
// shorter shape is padded with leading 1s, and each dimension pair must be
// equal or contain a 1. With dot, the last dimensions must be equal and are
// reduced away. It returns an error naming the dimensions that do not match.
func New(lhs, rhs []int, dot bool) (Plan, error) {
	for _, s := range [][]int{lhs, rhs} {
		for _, d := range s {
			if d < 0 {
				return Plan{}, fmt.Errorf("negative dimension in shape %v", s)
			}
		}
	}
	p := Plan{LhsLen: Prod(lhs), RhsLen: Prod(rhs), Dot: dot, ReduceLen: 1}
	l, r := lhs, rhs
	if dot {
		if len(l) == 0 || len(r) == 0 {
			return Plan{}, fmt.Errorf("dot needs a feature dimension, got shapes %v and %v", lhs, rhs)
		}
		if l[len(l)-1] != r[len(r)-1] {
			return Plan{}, fmt.Errorf("dot of shapes %v and %v: last dimensions %d and %d differ", lhs, rhs, l[len(l)-1], r[len(r)-1])
		}
		p.ReduceLen = l[len(l)-1]
		l, r = l[:len(l)-1], r[:len(r)-1]
	}
	nd := max(len(l), len(r))
	pl, pr := pad(l, nd), pad(r, nd)
	out := make([]int, nd)
	for i := range nd {
		switch {
		case pl[i] == pr[i]:
			out[i] = pl[i]
		case pl[i] == 1:
			out[i] = pr[i]
		case pr[i] == 1:
			out[i] = pl[i]
		default:
			return Plan{}, fmt.Errorf("shapes %v and %v do not broadcast: dimension %d is %d and %d", lhs, rhs, i, pl[i], pr[i])
		}
	}
	p.Out = out
	p.OutLen = Prod(out)
	if !dot && slices.Equal(lhs, rhs) {
		p.Out = clone(lhs)
		p.Trivial = true
		return p, nil
	}
	p.LhsOff = offsets(pl, out, p.ReduceLen)
	p.RhsOff = offsets(pr, out, p.ReduceLen)
	return p, nil
}

// offsets maps every output index to the flat offset of the matching element
// of an operand of (padded) shape s, whose rows have an extra trailing
// dimension of size inner (1 unless a dot product).
func offsets(s, out []int, inner int) []int {
	n := Prod(out)
	off := make([]int, n)
	nd := len(out)
	// strides of the operand, 0 on broadcast dimensions
	stride := make([]int, nd)
	acc := inner
	for i := nd - 1; i >= 0; i-- {
		if s[i] != 1 || out[i] == 1 {
			stride[i] = acc
		}
		acc *= s[i]
	}
	idx := make([]int, nd)
	for k := range n {
		o := 0
		for i := range nd {
			o += idx[i] * stride[i]
		}
		off[k] = o
		for i := nd - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < out[i] {
				break
			}
			idx[i] = 0
		}
	}
	return off
}

func pad(s []int, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = 1
	}
	copy(p[n-len(s):], s)
	return p
}

// Prod returns the product of the sizes in s: 1 for none.
func Prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

func clone(s []int) []int { return append([]int{}, s...) }
