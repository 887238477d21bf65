package sddmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// reference is the oracle: a naive loop over the COO edge list that indexes
// both operands through NumPy broadcasting of their feature shapes, computed
// in float64 and independent of bcast's offset tables. For Dot the last
// dimension of both shapes is reduced; a copy broadcasts its operand to the
// shape of the other, whose values it does not read (nil shape: no
// broadcasting). It returns the output rows and their feature shape.
func reference[T num.Float](g *graph.Graph, op Op, lhs []T, lshape []int, lt Target, rhs []T, rshape []int, rt Target) ([]float64, []int) {
	if op == CopyRHS {
		op, lhs, lshape, lt, rhs, rshape, rt = CopyLHS, rhs, rshape, rt, lhs, lshape, lt
	}
	red := 1
	ls, rs := lshape, rshape
	if op == Dot {
		red = ls[len(ls)-1]
		ls, rs = ls[:len(ls)-1], rs[:len(rs)-1]
	}
	nd := max(len(ls), len(rs))
	lp, rp := padShape(ls, nd), padShape(rs, nd)
	oshape := make([]int, nd)
	for i := range nd {
		oshape[i] = max(lp[i], rp[i])
	}
	olen, llen, rlen := size(oshape), size(lshape), size(rshape)

	src, dst := g.COO()
	row := func(t Target, e int) int {
		switch t {
		case U:
			return int(src[e])
		case V:
			return int(dst[e])
		}
		return e
	}
	out := make([]float64, g.NumEdges()*olen)
	idx := make([]int, nd)
	for e := range g.NumEdges() {
		lr, rr := row(lt, e)*llen, row(rt, e)*rlen
		for k := range olen {
			unravel(k, oshape, idx)
			lo, ro := ravel(idx, lp)*red, ravel(idx, rp)*red
			var v float64
			switch op {
			case CopyLHS:
				v = float64(lhs[lr+lo])
			case Add:
				v = float64(lhs[lr+lo]) + float64(rhs[rr+ro])
			case Sub:
				v = float64(lhs[lr+lo]) - float64(rhs[rr+ro])
			case Mul:
				v = float64(lhs[lr+lo]) * float64(rhs[rr+ro])
			case Div:
				v = float64(lhs[lr+lo]) / float64(rhs[rr+ro])
			case Dot:
				for j := range red {
					v += float64(lhs[lr+lo+j]) * float64(rhs[rr+ro+j])
				}
			}
			out[e*olen+k] = v
		}
	}
	return out, oshape
}

// unravel writes the multi-index of flat index k in shape s into idx.
func unravel(k int, s, idx []int) {
	for i := len(s) - 1; i >= 0; i-- {
		idx[i] = k % s[i]
		k /= s[i]
	}
}

// ravel returns the flat index in shape s of multi-index idx, reading index 0
// on dimensions of size 1 (broadcasting).
func ravel(idx, s []int) int {
	f := 0
	for i, d := range s {
		j := idx[i]
		if d == 1 {
			j = 0
		}
		f = f*d + j
	}
	return f
}

func padShape(s []int, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = 1
	}
	copy(p[n-len(s):], s)
	return p
}

func size(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}
