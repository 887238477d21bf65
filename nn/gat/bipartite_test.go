package gat_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn/gat"
)

// A relation from 6 nodes of one type (3 features) to 4 of another (5
// features); destination 3 has no in-edges.
const bpSrc, bpDst, bpIn, bpDstIn, bpHeads, bpOut = 6, 4, 3, 5, 2, 3

var bpEdgesSrc, bpEdgesDst = []int32{0, 1, 5, 2, 4, 4, 3}, []int32{0, 0, 1, 2, 2, 1, 0}

// bpCase is a bipartite configuration: with a destination projection of
// its own (dst width 5) or the shared one (dst width 3).
type bpCase struct {
	name  string
	dstIn int // 0: shared weight
}

var bpCases = []bpCase{{"dst-weight", bpDstIn}, {"shared", 0}}

func (c bpCase) width() int {
	if c.dstIn > 0 {
		return c.dstIn
	}
	return bpIn
}

func (c bpCase) layer(t testing.TB, eg *gorgonia.ExprGraph, dt tensor.Dtype) *gat.GATConv {
	opts := []gat.Option{gat.WithHeads(bpHeads), gat.WithResidual(true), gat.WithAllowZeroInDegree(true), gat.WithDtype(dt), gat.WithSeed(4)}
	if c.dstIn > 0 {
		opts = append(opts, gat.WithDstIn(c.dstIn))
	}
	l, err := gat.New(eg, bpIn, bpOut, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestBipartiteDense compares ForwardBipartite with the formula written
// out edge by edge: source scores and messages from src W, destination
// scores and the residual from dst, softmax over each destination's
// in-edges.
func TestBipartiteDense(t *testing.T) {
	for _, edges := range []bool{true, false} {
		src, dst := bpEdgesSrc, bpEdgesDst
		if !edges {
			src, dst = nil, nil
		}
		g := testgraphs.Must(t, bpSrc, bpDst, src, dst)
		for _, c := range bpCases {
			for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
				eg := gorgonia.NewGraph()
				l := c.layer(t, eg, dt)
				r := rand.New(rand.NewPCG(1, 2))
				for _, p := range l.Learnables() {
					gradcheck.Set(p, gradcheck.Draw(r, p.Shape().TotalSize()))
				}
				dw := c.width()
				xs := gradcheck.Input(eg, dt, "xs", []int{bpSrc, bpIn}, gradcheck.Draw(r, bpSrc*bpIn))
				xd := gradcheck.Input(eg, dt, "xd", []int{bpDst, dw}, gradcheck.Draw(r, bpDst*dw))
				y, err := l.ForwardBipartite(g, xs, xd)
				if err != nil {
					t.Fatal(err)
				}
				v := gradcheck.Run(t, append(gorgonia.Nodes{y, xs, xd}, l.Learnables()...)...)
				sv, dv := v[1], v[2]
				// Learnables: weight, attn_l, attn_r, res_weight, bias[, dst_weight].
				w, al, ar, rw, b := v[3], v[4], v[5], v[6], v[7]
				wd := w
				if c.dstIn > 0 {
					wd = v[8]
				}
				hf := bpHeads * bpOut
				proj := func(x, m []float64, n, k int) []float64 {
					o := make([]float64, n*hf)
					for i := range n {
						for j := range hf {
							for q := range k {
								o[i*hf+j] += x[i*k+q] * m[q*hf+j]
							}
						}
					}
					return o
				}
				zs, zd, res := proj(sv, w, bpSrc, bpIn), proj(dv, wd, bpDst, dw), proj(dv, rw, bpDst, dw)
				score := func(z, a []float64, i, h int) float64 {
					s := 0.0
					for f := range bpOut {
						s += z[i*hf+h*bpOut+f] * a[h*bpOut+f]
					}
					return s
				}
				want := make([]float64, bpDst*hf)
				for d := range bpDst {
					for h := range bpHeads {
						var es []float64
						mx := math.Inf(-1)
						for e := range src {
							if int(dst[e]) == d {
								x := score(zs, al, int(src[e]), h) + score(zd, ar, d, h)
								if x < 0 {
									x *= 0.2
								}
								es = append(es, x)
								mx = math.Max(mx, x)
							}
						}
						sum := 0.0
						for _, x := range es {
							sum += math.Exp(x - mx)
						}
						k := 0
						for e := range src {
							if int(dst[e]) != d {
								continue
							}
							a := math.Exp(es[k]-mx) / sum
							k++
							for f := range bpOut {
								want[d*hf+h*bpOut+f] += a * zs[int(src[e])*hf+h*bpOut+f]
							}
						}
					}
					for j := range hf {
						want[d*hf+j] += res[d*hf+j] + b[j]
					}
				}
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				gradcheck.Expect(t, c.name+" "+dt.String(), v[0], want, tol)
			}
		}
	}
}

// TestBipartiteGradients checks the gradients of both feature sets and the
// parameters by finite differences.
func TestBipartiteGradients(t *testing.T) {
	g := testgraphs.Must(t, bpSrc, bpDst, bpEdgesSrc, bpEdgesDst)
	for _, c := range bpCases {
		t.Run(c.name, func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				l := c.layer(t, eg, dt)
				xs := gradcheck.Input(eg, dt, "xs", []int{bpSrc, bpIn}, gradcheck.Draw(r, bpSrc*bpIn))
				xd := gradcheck.Input(eg, dt, "xd", []int{bpDst, c.width()}, gradcheck.Draw(r, bpDst*c.width()))
				y, err := l.ForwardBipartite(g, xs, xd)
				return y, append(gorgonia.Nodes{xs, xd}, l.Learnables()...), err
			}
			gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: 5, Stream: 6})
		})
	}
}

func TestBipartiteErrors(t *testing.T) {
	g := testgraphs.Must(t, bpSrc, bpDst, bpEdgesSrc, bpEdgesDst)
	eg := gorgonia.NewGraph()
	if _, err := gat.New(eg, bpIn, bpOut, gat.WithDstIn(-1)); err == nil {
		t.Error("WithDstIn(-1): no error")
	}
	l := bpCases[0].layer(t, eg, tensor.Float64)
	r := rand.New(rand.NewPCG(1, 2))
	xs := gradcheck.Input(eg, tensor.Float64, "xs", []int{bpSrc, bpIn}, gradcheck.Draw(r, bpSrc*bpIn))
	bad := gradcheck.Input(eg, tensor.Float64, "bad", []int{bpDst, bpIn}, gradcheck.Draw(r, bpDst*bpIn))
	if _, err := l.ForwardBipartite(g, xs, bad); err == nil || !strings.Contains(err.Error(), "want (4, 5)") {
		t.Errorf("wrong destination width: %v", err)
	}
	if _, err := l.Forward(g, xs); err == nil || !strings.Contains(err.Error(), "ForwardBipartite") {
		t.Errorf("Forward on a layer with WithDstIn: %v", err)
	}
}
