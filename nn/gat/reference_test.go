package gat_test

import (
	"math"

	"github.com/gnngo/gnn/internal/testkit/layertest"
)

// The test graph has 5 nodes, self-loops (1 -> 1 twice, 2 -> 2), parallel
// edges (0 -> 4 twice) and in-degrees from 1 to 4.
var (
	testSrc = []int32{0, 1, 2, 3, 4, 0, 0, 3, 2, 4, 1}
	testDst = []int32{1, 1, 2, 0, 3, 4, 4, 2, 3, 1, 1}
)

const testN = 5

// params are a layer's parameter values, flattened; res and b may be nil.
// ee, when not nil, is the edge term of the attention logits (E x H).
type params struct {
	w, al, ar, res, b []float64
	ee                []float64
}

// reference computes GATConv by hand: per head k, z = x W, el = z·a_l,
// er = z·a_r, e = LeakyReLU(el[u] + er[v]) per edge, α = softmax of e over
// the in-edges of each destination, out[v] = Σ α w_e z[u] + residual + b,
// then the mean over heads when asked, then act. It returns the output and
// α (E x H).
func reference(x []float64, p params, ew []float64, in, heads, f int, slope float64, residual, mean bool, act func(float64) float64) (out, alpha []float64) {
	hf := heads * f
	z := layertest.MatMul(x, p.w, testN, in, hf)
	el := make([]float64, testN*heads)
	er := make([]float64, testN*heads)
	for u := range testN {
		for k := range heads {
			for j := range f {
				el[u*heads+k] += z[u*hf+k*f+j] * p.al[k*f+j]
				er[u*heads+k] += z[u*hf+k*f+j] * p.ar[k*f+j]
			}
		}
	}
	ne := len(testSrc)
	score := make([]float64, ne*heads)
	for e := range ne {
		for k := range heads {
			s := el[int(testSrc[e])*heads+k] + er[int(testDst[e])*heads+k]
			if p.ee != nil {
				s += p.ee[e*heads+k]
			}
			if s < 0 {
				s *= slope
			}
			score[e*heads+k] = s
		}
	}
	alpha = make([]float64, ne*heads)
	for v := range testN {
		for k := range heads {
			m := math.Inf(-1)
			for e := range ne {
				if int(testDst[e]) == v {
					m = math.Max(m, score[e*heads+k])
				}
			}
			var sum float64
			for e := range ne {
				if int(testDst[e]) == v {
					sum += math.Exp(score[e*heads+k] - m)
				}
			}
			for e := range ne {
				if int(testDst[e]) == v {
					alpha[e*heads+k] = math.Exp(score[e*heads+k]-m) / sum
				}
			}
		}
	}
	rst := make([]float64, testN*hf)
	for e := range ne {
		u, v := int(testSrc[e]), int(testDst[e])
		we := 1.0
		if ew != nil {
			we = ew[e]
		}
		for k := range heads {
			for j := range f {
				rst[v*hf+k*f+j] += alpha[e*heads+k] * we * z[u*hf+k*f+j]
			}
		}
	}
	if residual {
		r := x // identity when in == H*F
		if p.res != nil {
			r = layertest.MatMul(x, p.res, testN, in, hf)
		}
		for i := range rst {
			rst[i] += r[i]
		}
	}
	if p.b != nil {
		for i := range rst {
			rst[i] += p.b[i%hf]
		}
	}
	out = rst
	if mean {
		out = make([]float64, testN*f)
		for v := range testN {
			for j := range f {
				for k := range heads {
					out[v*f+j] += rst[v*hf+k*f+j] / float64(heads)
				}
			}
		}
	}
	if act != nil {
		for i := range out {
			out[i] = act(out[i])
		}
	}
	return out, alpha
}

func elu(x float64) float64 {
	if x > 0 {
		return x
	}
	return math.Expm1(x)
}
