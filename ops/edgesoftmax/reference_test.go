package edgesoftmax

import (
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// groupOf returns the group key of every edge, read from the COO lists: its
// destination for ByDst, its source for BySrc.
func groupOf(g *graph.Graph, norm Norm) []int32 {
	src, dst := g.COO()
	if norm == BySrc {
		return src
	}
	return dst
}

// members lists the edges of every group in edge-ID order, from COO.
func members(g *graph.Graph, norm Norm) map[int32][]int {
	m := map[int32][]int{}
	for e, k := range groupOf(g, norm) {
		m[k] = append(m[k], e)
	}
	return m
}

// reference is the forward oracle: for every group and column, the textbook
// max-shifted softmax with math.Exp, in float64.
func reference[T num.Float](g *graph.Graph, norm Norm, score []T, w int) []float64 {
	out := make([]float64, len(score))
	for _, es := range members(g, norm) {
		for h := range w {
			m := math.Inf(-1)
			for _, e := range es {
				m = math.Max(m, float64(score[e*w+h]))
			}
			var sum float64
			for _, e := range es {
				sum += math.Exp(float64(score[e*w+h]) - m)
			}
			for _, e := range es {
				out[e*w+h] = math.Exp(float64(score[e*w+h])-m) / sum
			}
		}
	}
	return out
}

// composed is the backward oracle built as the op layer composes it from
// forward ops (DGL's EdgeSoftmax.backward): P = y*dy, per-node sums of P
// (CopyESum), dS = P - y * sum (EMulV), in float64.
func composed[T num.Float](g *graph.Graph, norm Norm, y, dy []T, w int) []float64 {
	key := groupOf(g, norm)
	n := g.NumDst()
	if norm == BySrc {
		n = g.NumSrc()
	}
	p := make([]float64, len(y))
	for i := range p {
		p[i] = float64(y[i]) * float64(dy[i])
	}
	sum := make([]float64, n*w)
	for e, k := range key {
		for h := range w {
			sum[int(k)*w+h] += p[e*w+h]
		}
	}
	ds := make([]float64, len(y))
	for e, k := range key {
		for h := range w {
			ds[e*w+h] = p[e*w+h] - float64(y[e*w+h])*sum[int(k)*w+h]
		}
	}
	return ds
}
