package cheb

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gnngo/gnn/graph"
)

// Power iteration limits of LambdaMax.
const (
	lambdaTol   = 1e-10
	lambdaSteps = 20000
)

// LambdaMax estimates the largest eigenvalue of g's normalised Laplacian
// L = I - D^-1/2 A^T D^-1/2 (D the in-degrees clamped to 1, as ChebConv
// uses it), DGL's dgl.laplacian_lambda_max, by power iteration from a fixed
// pseudo-random start: the Rayleigh quotient once it changes by less than
// 1e-10 relative between steps. On a symmetric graph the eigenvalues lie in
// [0, 2] (2 for a bipartite component). It returns an error for a graph that
// is not homogeneous or has no nodes, and with the last estimate when the
// iteration has not settled within 20000 steps (eigenvalues too close, or
// complex ones on a directed graph).
func LambdaMax(g *graph.Graph) (float64, error) {
	if g == nil {
		return 0, fmt.Errorf("cheb: LambdaMax of a nil graph")
	}
	if !g.Homogeneous() || g.NumDst() == 0 {
		return 0, fmt.Errorf("cheb: LambdaMax needs a homogeneous graph with nodes, got %d sources and %d destinations", g.NumSrc(), g.NumDst())
	}
	n := g.NumDst()
	c := g.CSC()
	s := make([]float64, n) // in-degree^-1/2, clamped
	for v := range s {
		s[v] = 1 / math.Sqrt(float64(max(c.Degree(v), 1)))
	}
	laplacian := func(y, x []float64) {
		for v := range y {
			var a float64
			for p := c.Indptr[v]; p < c.Indptr[v+1]; p++ {
				u := c.Indices[p]
				a += s[u] * x[u]
			}
			y[v] = x[v] - s[v]*a
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = r.Float64() + 0.5
	}
	normalize(x)
	prev := math.Inf(1)
	for range lambdaSteps {
		laplacian(y, x)
		var q float64
		for i := range x {
			q += x[i] * y[i]
		}
		if normalize(y) == 0 {
			return 0, nil // L x = 0: x lies in the null space (L = 0)
		}
		x, y = y, x
		if math.Abs(q-prev) <= lambdaTol*math.Max(1, math.Abs(q)) {
			return q, nil
		}
		prev = q
	}
	return prev, fmt.Errorf("cheb: LambdaMax did not settle within %d power iterations (last estimate %v)", lambdaSteps, prev)
}

// normalize scales x to unit length and returns its length before.
func normalize(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	s = math.Sqrt(s)
	if s > 0 {
		for i := range x {
			x[i] /= s
		}
	}
	return s
}
