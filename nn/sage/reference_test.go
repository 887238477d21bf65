package sage_test

import (
	"math"

	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn/sage"
)

type fixture = layertest.Fixture

var fixtures = layertest.Blocks

// params are a layer's parameter values, flattened row-major; the ones a
// configuration lacks are nil.
type params struct {
	pool, poolBias, self, neigh, b []float64
}

// reference computes SAGEConv edge by edge: the messages x[u] (Pool:
// ReLU(x[u] W_pool + b_pool)) times the edge weights, reduced per
// destination (mean over max(deg, 1), sum plus self over deg+1, or the
// elementwise max, 0 without in-edges), then the linear maps, the bias and
// act.
func reference(f fixture, agg sage.Aggregator, x []float64, p params, ew []float64, in, out int, act func(float64) float64) []float64 {
	msg := x
	width := in
	if agg == sage.Pool {
		msg = layertest.MatMul(x, p.pool, f.NumSrc, in, in)
		for i := range msg {
			msg[i] = math.Max(0, msg[i]+p.poolBias[i%in])
		}
	}
	red := make([]float64, f.NumDst*width)
	deg := make([]int, f.NumDst)
	seen := make([]bool, f.NumDst*width)
	for e := range f.Src {
		u, v := int(f.Src[e]), int(f.Dst[e])
		deg[v]++
		we := 1.0
		if ew != nil {
			we = ew[e]
		}
		for j := range width {
			m := we * msg[u*width+j]
			k := v*width + j
			if agg == sage.Pool {
				if !seen[k] || m > red[k] {
					red[k] = m
				}
				seen[k] = true
			} else {
				red[k] += m
			}
		}
	}
	for v := range f.NumDst {
		for j := range width {
			k := v*width + j
			switch agg {
			case sage.Mean:
				red[k] /= math.Max(float64(deg[v]), 1)
			case sage.GCN:
				red[k] = (red[k] + x[k]) / float64(deg[v]+1) // x[k]: destinations come first
			}
		}
	}
	res := layertest.MatMul(red, p.neigh, f.NumDst, width, out)
	if agg != sage.GCN {
		self := layertest.MatMul(x[:f.NumDst*in], p.self, f.NumDst, in, out)
		for i := range res {
			res[i] += self[i]
		}
	}
	for i := range res {
		if p.b != nil {
			res[i] += p.b[i%out]
		}
		if act != nil {
			res[i] = act(res[i])
		}
	}
	return res
}
