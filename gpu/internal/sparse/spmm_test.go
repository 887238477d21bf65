//go:build gnncuda

package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/cudatest"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/ops/spmm"
)

func TestSpMM(t *testing.T) {
	t.Run("float32", testSpMM[float32])
	t.Run("float64", testSpMM[float64])
}

// testSpMM checks SpMM and SpMMBackward against ops/spmm's Forward and a
// naive per-edge gradient, for every op, broadcast shape, reducer and
// fixture, and the arg indices of Max and Min exactly.
func testSpMM[T num.Float](t *testing.T) {
	eachGraph(t, func(c *cuda.Context, f testgraphs.Fixture, g *Graph) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, tc := range opCases(t) {
			for _, red := range []spmm.Reduce{spmm.Sum, spmm.Mean, spmm.Max, spmm.Min} {
				name := fmt.Sprintf("%s/%s/%v/%s/%v", c.Name(), f.Name, tc.op, tc.shape, red)
				t.Run(name, func(t *testing.T) {
					h := f.G
					p := tc.p
					var u, e []T
					if tc.op.UsesLHS() {
						u = kerneltest.Uniform[T](r, h.NumSrc()*p.LhsLen, -1, 1)
					}
					if tc.op.UsesRHS() {
						e = kerneltest.Uniform[T](r, h.NumEdges()*p.RhsLen, 1, 2)
					}
					want := make([]T, h.NumDst()*p.OutLen)
					var wantArg []int64
					if red >= spmm.Max {
						wantArg = make([]int64, len(want))
					}
					spmm.Forward(want, h, tc.op, red, u, e, p, wantArg)

					du, de := toDevice(t, c, u), toDevice(t, c, e)
					out := filled[T](t, c, len(want))
					var arg Buf
					if red >= spmm.Max {
						arg = filled[int64](t, c, len(want))
					}
					if err := SpMM[T](g, out, tc.op, red, du, de, p, arg); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					compare(t, name, toHost[T](t, c, out), want)
					if red >= spmm.Max {
						got := toHost[int64](t, c, arg)
						for i := range got {
							if got[i] != wantArg[i] {
								t.Fatalf("%s: arg[%d] = %d, want %d", name, i, got[i], wantArg[i])
							}
						}
					}

					dOut := kerneltest.Uniform[T](r, len(want), -1, 1)
					wu, we := spmmGradRef(h, tc.op, red, u, e, p, wantArg, dOut)
					gu, ge := Buf{}, Buf{}
					if wu != nil {
						gu = filled[T](t, c, len(wu))
					}
					if we != nil {
						ge = filled[T](t, c, len(we))
					}
					if err := SpMMBackward[T](g, gu, ge, tc.op, red, du, de, p, arg, toDevice(t, c, dOut)); err != nil {
						t.Fatalf("%s backward: %v", name, err)
					}
					if wu != nil {
						compare(t, name+" du", toHost[T](t, c, gu), wu)
					}
					if we != nil {
						compare(t, name+" de", toHost[T](t, c, ge), we)
					}
				})
			}
		}
	})
}

// spmmGradRef is the naive gradient of a SpMM: every edge e = (s -> v) and
// output element k sends dOut[v, k] (over the in-degree for Mean; to the
// arg edge only for Max and Min) through the message's derivative.
//
// It sums in float64 (the kernels' gradients do too), so that a float32
// comparison measures the kernel's error rather than the reference's.
func spmmGradRef[T num.Float](g *graph.Graph, op spmm.Op, red spmm.Reduce, u, e []T, p bcast.Plan, arg []int64, dOut []T) (du, de []T) {
	var su, se []float64
	if op.UsesLHS() {
		su = make([]float64, g.NumSrc()*p.LhsLen)
	}
	if op.UsesRHS() {
		se = make([]float64, g.NumEdges()*p.RhsLen)
	}
	lo, ro := offsets(p)
	deg := g.InDegrees()
	src, dst := g.COO()
	for id := range g.NumEdges() {
		s, v := int(src[id]), int(dst[id])
		for k := range p.OutLen {
			gr := dOut[v*p.OutLen+k]
			switch red {
			case spmm.Mean:
				gr /= T(deg[v])
			case spmm.Max, spmm.Min:
				if arg[v*p.OutLen+k] != int64(id) {
					continue
				}
			}
			var xu, xe T
			if u != nil {
				xu = u[s*p.LhsLen+lo[k]]
			}
			if e != nil {
				xe = e[id*p.RhsLen+ro[k]]
			}
			var gu, ge T
			switch op {
			case spmm.CopyU:
				gu = gr
			case spmm.CopyE:
				ge = gr
			case spmm.Add:
				gu, ge = gr, gr
			case spmm.Sub:
				gu, ge = gr, -gr
			case spmm.Mul:
				gu, ge = gr*xe, gr*xu
			case spmm.Div:
				gu, ge = gr/xe, -gr*xu/(xe*xe)
			}
			if su != nil {
				su[s*p.LhsLen+lo[k]] += float64(gu)
			}
			if se != nil {
				se[id*p.RhsLen+ro[k]] += float64(ge)
			}
		}
	}
	return round[T](su), round[T](se)
}

// round converts float64 sums to T; nil stays nil.
func round[T num.Float](x []float64) []T {
	if x == nil {
		return nil
	}
	y := make([]T, len(x))
	for i, v := range x {
		y[i] = T(v)
	}
	return y
}

func TestSpMMScaledAndSugar(t *testing.T) {
	eachGraph(t, func(c *cuda.Context, f testgraphs.Fixture, g *Graph) {
		h := f.G
		r := rand.New(rand.NewPCG(5, 5))
		const heads, feat = 2, 3
		u := kerneltest.Uniform[float64](r, h.NumSrc()*heads*feat, -1, 1)
		w := kerneltest.Uniform[float64](r, h.NumEdges()*heads, -1, 1)
		scale := kerneltest.Uniform[float64](r, h.NumDst(), 0, 1)
		p := bcast.Same([]int{heads * feat})
		want := make([]float64, h.NumDst()*heads*feat)
		spmm.ForwardScaled(want, h, spmm.CopyU, u, nil, p, scale)
		out := filled[float64](t, c, len(want))
		if err := SpMMScaled[float64](g, out, spmm.CopyU, toDevice(t, c, u), Buf{}, p, toDevice(t, c, scale)); err != nil {
			t.Fatal(err)
		}
		compare(t, f.Name+" scaled", toHost[float64](t, c, out), want)

		spmm.Forward(want, h, spmm.CopyU, spmm.Sum, u, nil, p, nil)
		if err := CopyUSum[float64](g, out, toDevice(t, c, u), heads*feat); err != nil {
			t.Fatal(err)
		}
		compare(t, f.Name+" CopyUSum", toHost[float64](t, c, out), want)

		pm := mustPlan(t, []int{heads, feat}, []int{heads, 1}, false)
		spmm.Forward(want, h, spmm.Mul, spmm.Sum, u, w, pm, nil)
		du, dw := toDevice(t, c, u), toDevice(t, c, w)
		if err := UMulESum[float64](g, out, du, dw, heads, feat); err != nil {
			t.Fatal(err)
		}
		compare(t, f.Name+" UMulESum", toHost[float64](t, c, out), want)
		dOut := kerneltest.Uniform[float64](r, len(want), -1, 1)
		wu, ww := spmmGradRef(h, spmm.Mul, spmm.Sum, u, w, pm, nil, dOut)
		gu, gw := filled[float64](t, c, len(wu)), filled[float64](t, c, len(ww))
		if err := UMulESumBackward[float64](g, gu, gw, du, dw, heads, feat, toDevice(t, c, dOut)); err != nil {
			t.Fatal(err)
		}
		compare(t, f.Name+" UMulESum du", toHost[float64](t, c, gu), wu)
		compare(t, f.Name+" UMulESum dw", toHost[float64](t, c, gw), ww)
		// The gradient of copy_u + sum is copy_u + sum on the reverse.
		if err := CopyUSum[float64](g.Reverse(), gu, toDevice(t, c, dOut[:h.NumDst()*heads*feat]), heads*feat); err != nil {
			t.Fatal(err)
		}
		wu, _ = spmmGradRef(h, spmm.CopyU, spmm.Sum, u, nil, p, nil, dOut)
		compare(t, f.Name+" CopyUSum on the reverse", toHost[float64](t, c, gu), wu)
	})
}

func TestSpMMErrors(t *testing.T) {
	c := cudatest.Emulator(t)
	h := fixtures(t)[2].G // small
	g := upload(t, c, h)
	p := bcast.Same([]int{4})
	u := filled[float32](t, c, h.NumSrc()*4)
	out := filled[float32](t, c, h.NumDst()*4)
	cases := map[string]error{
		"short out":  SpMM[float32](g, Buf{out.Ptr, out.Len - 1}, spmm.CopyU, spmm.Sum, u, Buf{}, p, Buf{}),
		"short u":    SpMM[float32](g, out, spmm.CopyU, spmm.Sum, Buf{u.Ptr, 3}, Buf{}, p, Buf{}),
		"missing e":  SpMM[float32](g, out, spmm.Mul, spmm.Sum, u, Buf{}, p, Buf{}),
		"reducer":    SpMM[float32](g, out, spmm.CopyU, spmm.Reduce(9), u, Buf{}, p, Buf{}),
		"dot":        SpMM[float32](g, out, spmm.Op(6), spmm.Sum, u, Buf{}, p, Buf{}),
		"arg":        SpMM[float32](g, out, spmm.CopyU, spmm.Max, u, Buf{}, p, Buf{out.Ptr, 2}),
		"bwd no arg": SpMMBackward[float32](g, u, Buf{}, spmm.CopyU, spmm.Max, u, Buf{}, p, Buf{}, out),
		"nil ptr":    SpMM[float32](g, Buf{0, out.Len}, spmm.CopyU, spmm.Sum, u, Buf{}, p, Buf{}),
	}
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	g.Free()
	if err := SpMM[float32](g, out, spmm.CopyU, spmm.Sum, u, Buf{}, p, Buf{}); err == nil {
		t.Error("SpMM on a freed graph: no error")
	}
}

// TestVectorSums checks that the copy_u sum kernel of four elements per
// thread gives the bits of the one-element kernel (sum, mean, scaled), and
// that unaligned buffers take the one-element kernel.
func TestVectorSums(t *testing.T) {
	c := cudatest.Emulator(t)
	r := rand.New(rand.NewPCG(8, 8))
	for _, f := range fixtures(t) {
		h := f.G
		g := upload(t, c, h)
		for _, dim := range []int{4, 8, 64} {
			p := bcast.Same([]int{dim})
			u := toDevice(t, c, kerneltest.Uniform[float32](r, h.NumSrc()*dim+4, -1, 1))
			scale := toDevice(t, c, kerneltest.Uniform[float32](r, h.NumDst(), 0, 1))
			n := h.NumDst() * dim
			run := func(vec bool, red spmm.Reduce, scaled bool, off int) []float32 {
				vectorSums = vec
				defer func() { vectorSums = true }()
				out := filled[float32](t, c, n+4)
				ob, ub := Buf{out.Ptr.Add(4 * off), n}, Buf{u.Ptr.Add(4 * off), h.NumSrc() * dim}
				var err error
				if scaled {
					err = SpMMScaled[float32](g, ob, spmm.CopyU, ub, Buf{}, p, scale)
				} else {
					err = SpMM[float32](g, ob, spmm.CopyU, red, ub, Buf{}, p, Buf{})
				}
				if err != nil {
					t.Fatal(err)
				}
				return toHost[float32](t, c, out)
			}
			for _, tc := range []struct {
				red    spmm.Reduce
				scaled bool
			}{{spmm.Sum, false}, {spmm.Mean, false}, {spmm.Sum, true}} {
				for _, off := range []int{0, 1} {
					want, got := run(false, tc.red, tc.scaled, off), run(true, tc.red, tc.scaled, off)
					for i := range want {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s dim %d %v scaled %v offset %d: [%d] = %v, one-element kernel %v", f.Name, dim, tc.red, tc.scaled, off, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
