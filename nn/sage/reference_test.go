package sage_test

import (
	"math"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/internal/layertest"
	"github.com/gnngo/gnn/nn/sage"
)

// fixture is a test graph. homo has self-loops (1 -> 1 twice, 2 -> 2),
// parallel edges (0 -> 4 twice) and node 0 without in-edges; block is
// bipartite with its 3 destinations first among its 6 sources, as a
// message-flow block.
type fixture struct {
	name     string
	ns, nd   int
	src, dst []int32
}

var fixtures = []fixture{
	{"homo", 5, 5, []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 1}, []int32{1, 1, 2, 1, 3, 4, 4, 2, 3, 1}},
	{"block", 6, 3, []int32{3, 4, 5, 0, 1, 2, 5, 4}, []int32{0, 0, 1, 1, 2, 2, 2, 0}},
}

func (f fixture) graph(t testing.TB) *graph.Graph {
	return layertest.Graph(t, f.ns, f.nd, f.src, f.dst)
}

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
		msg = matmul(x, p.pool, f.ns, in, in)
		for i := range msg {
			msg[i] = math.Max(0, msg[i]+p.poolBias[i%in])
		}
	}
	red := make([]float64, f.nd*width)
	deg := make([]int, f.nd)
	seen := make([]bool, f.nd*width)
	for e := range f.src {
		u, v := int(f.src[e]), int(f.dst[e])
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
	for v := range f.nd {
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
	res := matmul(red, p.neigh, f.nd, width, out)
	if agg != sage.GCN {
		self := matmul(x[:f.nd*in], p.self, f.nd, in, out)
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

// matmul returns the n x m product of a (n x k) and b (k x m).
func matmul(a, b []float64, n, k, m int) []float64 {
	c := make([]float64, n*m)
	for i := range n {
		for j := range m {
			for l := range k {
				c[i*m+j] += a[i*k+l] * b[l*m+j]
			}
		}
	}
	return c
}
