package spmm

import (
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"gonum.org/v1/gonum/mat"
)

// The oracles of this package's tests: a naive loop over the COO edge list,
// written from the definition with no fast paths, and a dense gonum product
// for the linear cases.

// refOffsets returns the operand offsets of output element k.
func refOffsets(p bcast.Plan, k int) (lo, ro int) {
	if p.Trivial {
		return k, k
	}
	lo, ro = k, k
	if p.LhsOff != nil {
		lo = p.LhsOff[k]
	}
	if p.RhsOff != nil {
		ro = p.RhsOff[k]
	}
	return lo, ro
}

// refMessage is element k of the message of edge id from source s.
func refMessage[T num.Float](op Op, u, e []T, p bcast.Plan, s, id, k int) T {
	lo, ro := refOffsets(p, k)
	switch op {
	case CopyU:
		return u[s*p.LhsLen+lo]
	case CopyE:
		return e[id*p.RhsLen+ro]
	}
	a, b := u[s*p.LhsLen+lo], e[id*p.RhsLen+ro]
	switch op {
	case Add:
		return a + b
	case Sub:
		return a - b
	case Mul:
		return a * b
	case Div:
		return a / b
	}
	panic("unreachable")
}

// refForward is Forward computed edge by edge over the COO list in edge-ID
// order, accumulating into a zeroed output; it returns the output and arg.
func refForward[T num.Float](g *graph.Graph, op Op, red Reduce, u, e []T, p bcast.Plan) ([]T, []int64) {
	src, dst := g.COO()
	f := p.OutLen
	out := make([]T, g.NumDst()*f)
	arg := make([]int64, len(out))
	for i := range arg {
		arg[i] = -1
	}
	deg := make([]int, g.NumDst())
	for id := range src {
		s, v := int(src[id]), int(dst[id])
		for k := range f {
			m := refMessage(op, u, e, p, s, id, k)
			i := v*f + k
			switch red {
			case Sum, Mean:
				out[i] += m
			case Max:
				if deg[v] == 0 || m > out[i] {
					out[i], arg[i] = m, int64(id)
				}
			case Min:
				if deg[v] == 0 || m < out[i] {
					out[i], arg[i] = m, int64(id)
				}
			}
		}
		deg[v]++
	}
	if red == Mean {
		for v, d := range deg {
			for k := range f {
				out[v*f+k] /= T(max(d, 1))
			}
		}
	}
	return out, arg
}

// refBackwardArg is BackwardArg computed output element by output element.
func refBackwardArg[T num.Float](g *graph.Graph, op Op, u, e []T, p bcast.Plan, arg []int64, dOut []T) (du, de []T) {
	src, _ := g.COO()
	du = make([]T, g.NumSrc()*p.LhsLen)
	de = make([]T, g.NumEdges()*p.RhsLen)
	f := p.OutLen
	for v := range g.NumDst() {
		for k := range f {
			id := int(arg[v*f+k])
			if id < 0 {
				continue
			}
			s := int(src[id])
			lo, ro := refOffsets(p, k)
			gr := dOut[v*f+k]
			iu, ie := s*p.LhsLen+lo, id*p.RhsLen+ro
			switch op {
			case CopyU:
				du[iu] += gr
			case CopyE:
				de[ie] += gr
			case Add:
				du[iu] += gr
				de[ie] += gr
			case Sub:
				du[iu] += gr
				de[ie] -= gr
			case Mul:
				du[iu] += gr * e[ie]
				de[ie] += gr * u[iu]
			case Div:
				du[iu] += gr / e[ie]
				de[ie] -= gr * u[iu] / (e[ie] * e[ie])
			}
		}
	}
	return du, de
}

// denseAggregate computes Aᵀ X in float64 with gonum, where A is the
// NumSrc x NumDst adjacency whose entry (s, v) sums the weights of the
// edges s -> v (1 each when w is nil) and X has rows of f features.
func denseAggregate[T num.Float](g *graph.Graph, x []T, f int, w []T) []float64 {
	out := make([]float64, g.NumDst()*f)
	if g.NumSrc() == 0 || g.NumDst() == 0 || f == 0 {
		return out
	}
	a := mat.NewDense(g.NumSrc(), g.NumDst(), nil)
	src, dst := g.COO()
	for id := range src {
		wt := 1.0
		if w != nil {
			wt = float64(w[id])
		}
		a.Set(int(src[id]), int(dst[id]), a.At(int(src[id]), int(dst[id]))+wt)
	}
	xd := make([]float64, len(x))
	for i, v := range x {
		xd[i] = float64(v)
	}
	var r mat.Dense
	r.Mul(a.T(), mat.NewDense(g.NumSrc(), f, xd))
	for v := range g.NumDst() {
		for k := range f {
			out[v*f+k] = r.At(v, k)
		}
	}
	return out
}
