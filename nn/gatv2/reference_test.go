package gatv2_test

import (
	"math"

	"github.com/gnngo/gnn/internal/testkit/layertest"
)

// params are a layer's parameter values, flattened; the optional ones may
// be nil (wd nil: shared weights).
type params struct {
	ws, bs, wd, bd, attn, rw, rb, we []float64
}

// spec is the configuration a reference computes.
type spec struct {
	in, heads, f   int
	slope          float64
	residual, mean bool
	act            func(float64) float64
}

// reference computes GATv2Conv edge by edge on the fixture f: z_src = x W_s
// + b_s, z_dst = x[:NumDst] W_d + b_d, t = z_src[u] + z_dst[v] (+ ef W_e),
// score = Σ_f a LeakyReLU(t), α = softmax over the in-edges of each
// destination, out[v] = Σ α w_e z_src[u] + residual, the mean over heads
// when asked, then act. It returns the output and α (E x H).
func reference(fx layertest.Fixture, x []float64, p params, ef, ew []float64, d int, s spec) (out, alpha []float64) {
	ns, nd, hf, heads, f := fx.NumSrc, fx.NumDst, s.heads*s.f, s.heads, s.f
	linear := func(x, w, b []float64, n int) []float64 {
		y := layertest.MatMul(x, w, n, s.in, hf)
		for i := range y {
			if b != nil {
				y[i] += b[i%hf]
			}
		}
		return y
	}
	xd := x[:nd*s.in]
	zs := linear(x, p.ws, p.bs, ns)
	zd := zs[:nd*hf]
	if p.wd != nil {
		zd = linear(xd, p.wd, p.bd, nd)
	}
	ne := len(fx.Src)
	score := make([]float64, ne*heads)
	for e := range ne {
		u, v := int(fx.Src[e]), int(fx.Dst[e])
		for j := range hf {
			t := zs[u*hf+j] + zd[v*hf+j]
			for k := range d {
				t += ef[e*d+k] * p.we[k*hf+j]
			}
			if t < 0 {
				t *= s.slope
			}
			score[e*heads+j/f] += p.attn[j] * t
		}
	}
	alpha = make([]float64, ne*heads)
	for v := range nd {
		for k := range heads {
			m := math.Inf(-1)
			var sum float64
			for e := range ne {
				if int(fx.Dst[e]) == v {
					m = math.Max(m, score[e*heads+k])
				}
			}
			for e := range ne {
				if int(fx.Dst[e]) == v {
					sum += math.Exp(score[e*heads+k] - m)
				}
			}
			for e := range ne {
				if int(fx.Dst[e]) == v {
					alpha[e*heads+k] = math.Exp(score[e*heads+k]-m) / sum
				}
			}
		}
	}
	rst := make([]float64, nd*hf)
	for e := range ne {
		u, v := int(fx.Src[e]), int(fx.Dst[e])
		we := 1.0
		if ew != nil {
			we = ew[e]
		}
		for j := range hf {
			rst[v*hf+j] += alpha[e*heads+j/f] * we * zs[u*hf+j]
		}
	}
	if s.residual {
		r := xd // identity when in == H*F
		if p.rw != nil {
			r = linear(xd, p.rw, p.rb, nd)
		}
		for i := range rst {
			rst[i] += r[i]
		}
	}
	out = rst
	if s.mean {
		out = make([]float64, nd*f)
		for v := range nd {
			for j := range f {
				for k := range heads {
					out[v*f+j] += rst[v*hf+k*f+j] / float64(heads)
				}
			}
		}
	}
	if s.act != nil {
		for i := range out {
			out[i] = s.act(out[i])
		}
	}
	return out, alpha
}
