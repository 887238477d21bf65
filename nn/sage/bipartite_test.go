package sage_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn/sage"
)

// A relation from 6 nodes of one type (3 features) to 4 of another (5
// features), node 3 without in-edges.
const bpSrc, bpDst, bpIn, bpDstIn, bpOut = 6, 4, 3, 5, 2

var bpEdgesSrc, bpEdgesDst = []int32{0, 1, 5, 2, 4, 4, 3}, []int32{0, 0, 1, 2, 2, 1, 0}

// TestBipartiteDense compares ForwardBipartite with the dense formulas,
// x_dst W_self + mean_u(x_u) W_neigh + b (mean) and x_dst W_self +
// max_u(ReLU(x_u W_pool + b_pool)) W_neigh + b (pool), in both dtypes.
func TestBipartiteDense(t *testing.T) {
	g := testgraphs.Must(t, bpSrc, bpDst, bpEdgesSrc, bpEdgesDst)
	for _, agg := range []sage.Aggregator{sage.Mean, sage.Pool} {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			eg := gorgonia.NewGraph()
			l, err := sage.New(eg, bpIn, bpOut, sage.WithDstIn(bpDstIn), sage.WithAggregator(agg), sage.WithDtype(dt), sage.WithSeed(4))
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			xs := gradcheck.Input(eg, dt, "xs", []int{bpSrc, bpIn}, gradcheck.Draw(r, bpSrc*bpIn))
			xd := gradcheck.Input(eg, dt, "xd", []int{bpDst, bpDstIn}, gradcheck.Draw(r, bpDst*bpDstIn))
			for _, p := range l.Learnables() {
				gradcheck.Set(p, gradcheck.Draw(r, p.Shape().TotalSize()))
			}
			y, err := l.ForwardBipartite(g, xs, xd)
			if err != nil {
				t.Fatal(err)
			}
			v := gradcheck.Run(t, append(gorgonia.Nodes{y, xs, xd}, l.Learnables()...)...)
			sv, dv, ps := v[1], v[2], v[3:]
			var pool, poolB, self, neigh, bias []float64
			if agg == sage.Pool {
				pool, poolB, ps = ps[0], ps[1], ps[2:]
			}
			self, neigh, bias = ps[0], ps[1], ps[2]
			want := make([]float64, bpDst*bpOut)
			for v := range bpDst {
				// The neighbourhood's vector: mean of x_u, or max of the pooled rows.
				var hn []float64
				cnt := 0
				for e, d := range bpEdgesDst {
					if int(d) != v {
						continue
					}
					u := int(bpEdgesSrc[e])
					row := sv[u*bpIn : (u+1)*bpIn]
					if agg == sage.Pool {
						p := make([]float64, bpIn)
						for j := range bpIn {
							p[j] = poolB[j]
							for k := range bpIn {
								p[j] += row[k] * pool[k*bpIn+j]
							}
							p[j] = math.Max(p[j], 0)
						}
						row = p
					}
					if hn == nil {
						hn = append([]float64(nil), row...)
					} else {
						for j := range hn {
							if agg == sage.Pool {
								hn[j] = math.Max(hn[j], row[j])
							} else {
								hn[j] += row[j]
							}
						}
					}
					cnt++
				}
				if hn == nil {
					hn = make([]float64, bpIn)
				}
				for j := range bpOut {
					s := bias[j]
					for k := range bpDstIn {
						s += dv[v*bpDstIn+k] * self[k*bpOut+j]
					}
					for k := range bpIn {
						m := hn[k]
						if agg == sage.Mean && cnt > 0 {
							m /= float64(cnt)
						}
						s += m * neigh[k*bpOut+j]
					}
					want[v*bpOut+j] = s
				}
			}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			gradcheck.Expect(t, agg.String()+" "+dt.String(), v[0], want, tol)
		}
	}
}

// TestBipartiteGradients checks the gradients of both feature sets and the
// parameters by finite differences.
func TestBipartiteGradients(t *testing.T) {
	g := testgraphs.Must(t, bpSrc, bpDst, bpEdgesSrc, bpEdgesDst)
	for _, agg := range []sage.Aggregator{sage.Mean, sage.Pool} {
		t.Run(agg.String(), func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				l, err := sage.New(eg, bpIn, bpOut, sage.WithDstIn(bpDstIn), sage.WithAggregator(agg), sage.WithDtype(dt), sage.WithSeed(4))
				if err != nil {
					return nil, nil, err
				}
				xs := gradcheck.Input(eg, dt, "xs", []int{bpSrc, bpIn}, gradcheck.Draw(r, bpSrc*bpIn))
				xd := gradcheck.Input(eg, dt, "xd", []int{bpDst, bpDstIn}, gradcheck.Draw(r, bpDst*bpDstIn))
				y, err := l.ForwardBipartite(g, xs, xd)
				return y, append(gorgonia.Nodes{xs, xd}, l.Learnables()...), err
			}
			gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: 5, Stream: 6, NonSmooth: agg == sage.Pool})
		})
	}
}

func TestBipartiteErrors(t *testing.T) {
	g := testgraphs.Must(t, bpSrc, bpDst, bpEdgesSrc, bpEdgesDst)
	eg := gorgonia.NewGraph()
	if _, err := sage.New(eg, bpIn, bpOut, sage.WithDstIn(bpDstIn), sage.WithAggregator(sage.GCN)); err == nil || !strings.Contains(err.Error(), "one width") {
		t.Errorf("gcn aggregator with two widths: %v", err)
	}
	if _, err := sage.New(eg, bpIn, bpOut, sage.WithDstIn(0)); err == nil {
		t.Error("WithDstIn(0): no error")
	}
	l, err := sage.New(eg, bpIn, bpOut, sage.WithDstIn(bpDstIn), sage.WithDtype(tensor.Float64))
	if err != nil {
		t.Fatal(err)
	}
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
