package sddmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// gatv2Shapes are the heads and features of the kernel tests: those the
// AVX2 kernels take (F of 1, 2, 4, 8 and multiples of 8 with H*F a
// multiple of 8, groups of fewer than 8 heads included) and some they
// leave to Go.
var gatv2Shapes = [][2]int{{8, 8}, {8, 2}, {4, 2}, {12, 2}, {2, 4}, {6, 4}, {8, 1}, {16, 1}, {3, 8}, {1, 8}, {9, 8}, {2, 16}, {3, 24}, {1, 3}, {2, 3}, {3, 2}}

// gatv2Result is the scores and every gradient of a GATv2 kernel.
type gatv2Result[T num.Float] struct{ s, dzl, dzr, da, def, dwe []T }

// newGATv2 draws the operands of a GATv2 kernel on g in ±[0.5, 1.5); with
// ties, some destination rows are the negated rows of sources, so that
// some t are exactly 0.
func newGATv2[T num.Float](rng *rand.Rand, g *graph.Graph, h, f, d int, slope T, ties bool) (*GATv2[T], []T) {
	w := h * f
	k := &GATv2[T]{G: g, Heads: h, Feat: f, Slope: slope, EDim: d,
		ZL: operand[T](rng, g.NumSrc()*w), ZR: operand[T](rng, g.NumDst()*w), A: operand[T](rng, w)}
	if d > 0 {
		k.EF, k.WE = operand[T](rng, g.NumEdges()*d), operand[T](rng, d*w)
	}
	if ties {
		for v := 0; v < min(g.NumSrc(), g.NumDst()); v += 3 {
			for j := range w {
				k.ZR[v*w+j] = -k.ZL[v*w+j]
			}
		}
	}
	return k, operand[T](rng, g.NumEdges()*h)
}

// run computes everything with k's methods, from NaN-filled outputs, with
// GradAll's recorded signs whatever the order of the graph's edges.
func (k *GATv2[T]) run(ds []T) gatv2Result[T] {
	saved := gatv2MaskAlways
	gatv2MaskAlways = true
	defer func() { gatv2MaskAlways = saved }()
	w, ne := k.Heads*k.Feat, k.G.NumEdges()
	nan := func(n int) []T {
		x := make([]T, n)
		for i := range x {
			x[i] = T(math.NaN())
		}
		return x
	}
	r := gatv2Result[T]{s: nan(ne * k.Heads), dzl: nan(k.G.NumSrc() * w), dzr: nan(k.G.NumDst() * w),
		da: nan(w), def: nan(ne * k.EDim), dwe: nan(k.EDim * w)}
	k.Scores(r.s)
	k.GradAll(r.dzl, r.dzr, r.da, r.def, r.dwe, ds)
	return r
}

// gatv2Reference computes the scores and gradients edge by edge in COO
// order, in float64.
func gatv2Reference[T num.Float](k *GATv2[T], ds []T) gatv2Result[float64] {
	h, f, d := k.Heads, k.Feat, k.EDim
	w, ne := h*f, k.G.NumEdges()
	r := gatv2Result[float64]{s: make([]float64, ne*h), dzl: make([]float64, k.G.NumSrc()*w),
		dzr: make([]float64, k.G.NumDst()*w), da: make([]float64, w), def: make([]float64, ne*d), dwe: make([]float64, d*w)}
	src, dst := k.G.COO()
	slope := float64(k.Slope)
	for e := range src {
		u, v := int(src[e]), int(dst[e])
		for j := range w {
			t := float64(k.ZL[u*w+j]) + float64(k.ZR[v*w+j])
			for i := range d {
				t += float64(k.EF[e*d+i]) * float64(k.WE[i*w+j])
			}
			l, s := t, 1.0
			if !(t > 0) {
				l, s = t*slope, slope
			}
			g := float64(ds[e*h+j/f])
			r.s[e*h+j/f] += float64(k.A[j]) * l
			m := g * float64(k.A[j]) * s
			r.dzl[u*w+j] += m
			r.dzr[v*w+j] += m
			r.da[j] += g * l
			for i := range d {
				r.def[e*d+i] += m * float64(k.WE[i*w+j])
				r.dwe[i*w+j] += float64(k.EF[e*d+i]) * m
			}
		}
	}
	return r
}

// each calls fn with the name, the result and the reference of every output.
func each[T num.Float](got gatv2Result[T], want gatv2Result[float64], fn func(name string, got []T, want []float64)) {
	fn("scores", got.s, want.s)
	fn("dZL", got.dzl, want.dzl)
	fn("dZR", got.dzr, want.dzr)
	fn("dA", got.da, want.da)
	fn("dEF", got.def, want.def)
	fn("dWE", got.dwe, want.dwe)
}

// gatv2Graphs are the graphs of the kernel tests: random homogeneous and
// bipartite graphs with nodes of no in- or out-edges, and a hub.
func gatv2Graphs(t *testing.T, rng *rand.Rand) map[string]*graph.Graph {
	var src, dst []int32
	for range 300 {
		src, dst = append(src, int32(rng.IntN(40))), append(dst, 3)
	}
	for range 200 {
		src, dst = append(src, int32(rng.IntN(40))), append(dst, int32(rng.IntN(20)))
	}
	return map[string]*graph.Graph{
		"random":    randomGraph(t, rng, 60, 60, 700),
		"bipartite": randomGraph(t, rng, 50, 17, 400),
		"hub":       mustGraph(t, 40, 25, src, dst),
	}
}

// TestGATv2Kernel checks the scores and every gradient against the
// per-edge float64 reference, in float32 and float64, with and without
// edge features, for slopes below and above 1, and, where the AVX2
// kernels apply, that they give the bits of the Go loops.
func TestGATv2Kernel(t *testing.T) {
	t.Run("float32", testGATv2Kernel[float32])
	t.Run("float64", testGATv2Kernel[float64])
}

func testGATv2Kernel[T num.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	tol := 1e-12
	if isFloat32[T]() {
		tol = 2e-5
	}
	for gname, g := range gatv2Graphs(t, rng) {
		for _, hf := range gatv2Shapes {
			for _, d := range []int{0, 3} {
				for _, slope := range []T{0.2, 1.7} {
					name := fmt.Sprintf("%s/h=%d/f=%d/d=%d/slope=%v", gname, hf[0], hf[1], d, slope)
					k, ds := newGATv2[T](rng, g, hf[0], hf[1], d, slope, true)
					got := k.run(ds)
					want := gatv2Reference(k, ds)
					// Sums of up to a few hundred terms of magnitude ~10:
					// compare relative to the sum of magnitudes.
					each(got, want, func(what string, got []T, want []float64) {
						if i, ok := within(got, want, tol*float64(100*(d+1))); !ok {
							t.Fatalf("%s: %s element %d is %v, want %v", name, what, i, got[i], want[i])
						}
					})
					if _, accel := k.f32(); accel {
						saved := useAVX2
						useAVX2 = false
						goPath := k.run(ds)
						useAVX2 = saved
						sameBits(t, name, got, goPath)
					}
				}
			}
		}
	}
}

// sameBits fails unless every output of a and b has the same bits.
func sameBits[T num.Float](t *testing.T, name string, a, b gatv2Result[T]) {
	t.Helper()
	pairs := [][2][]T{{a.s, b.s}, {a.dzl, b.dzl}, {a.dzr, b.dzr}, {a.da, b.da}, {a.def, b.def}, {a.dwe, b.dwe}}
	for p, ab := range pairs {
		for i := range ab[0] {
			x, y := float64(ab[0][i]), float64(ab[1][i])
			if math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("%s: output %d element %d is %v and %v (%x, %x)", name, p, i, x, y, math.Float64bits(x), math.Float64bits(y))
			}
		}
	}
}

// TestGATv2PureGo runs TestGATv2Kernel's float32 checks with the AVX2
// kernels off.
func TestGATv2PureGo(t *testing.T) {
	withoutAccel(t)
	t.Run("float32", testGATv2Kernel[float32])
}

// TestGATv2Deterministic checks the same bits for GOMAXPROCS 1 and 2 on a
// graph large enough to be split, with and without the AVX2 kernels.
func TestGATv2Deterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	g := randomGraph(t, rng, 1500, 1200, 20000)
	for _, hf := range [][2]int{{8, 8}, {8, 2}, {2, 3}} {
		k, ds := newGATv2[float32](rng, g, hf[0], hf[1], 2, 0.2, false)
		for _, accel := range []bool{true, false} {
			saved := useAVX2
			useAVX2 = useAVX2 && accel
			procs := runtime.GOMAXPROCS(1)
			one := k.run(ds)
			runtime.GOMAXPROCS(2)
			two := k.run(ds)
			runtime.GOMAXPROCS(procs)
			useAVX2 = saved
			sameBits(t, fmt.Sprintf("h=%d/f=%d/accel=%v", hf[0], hf[1], accel), one, two)
		}
	}
}

// TestGATv2OneGradient checks that the per-operand methods give the bits
// of GradAll: GradZL's gathered rows those of the sign masks, with ties
// (t exactly 0) among the edges; and that GradAll gives them too on a
// graph numbered by destination, where it records the signs by itself.
func TestGATv2OneGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	random := randomGraph(t, rng, 200, 150, 3000)
	byDst, _, err := random.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	if !byDst.CSC().Ordered {
		t.Fatal("the graph numbered by destination has no Ordered CSC view")
	}
	for _, g := range []*graph.Graph{random, byDst} {
		for _, hf := range [][2]int{{8, 2}, {8, 8}, {2, 3}} {
			for _, accel := range []bool{true, false} {
				saved := useAVX2
				useAVX2 = useAVX2 && accel
				testOneGradient(t, rng, g, hf[0], hf[1])
				useAVX2 = saved
			}
		}
	}
}

func testOneGradient(t *testing.T, rng *rand.Rand, g *graph.Graph, h, f int) {
	k, ds := newGATv2[float32](rng, g, h, f, 3, 0.2, true)
	all := k.run(ds)
	plain := gatv2Result[float32]{s: all.s, dzl: make([]float32, len(all.dzl)), dzr: make([]float32, len(all.dzr)),
		da: make([]float32, len(all.da)), def: all.def, dwe: make([]float32, len(all.dwe))}
	k.GradAll(plain.dzl, plain.dzr, plain.da, nil, plain.dwe, ds)
	sameBits(t, fmt.Sprintf("GradAll/ordered=%v/h=%d/f=%d/avx2=%v", g.CSC().Ordered, h, f, useAVX2), all, plain)
	one := gatv2Result[float32]{s: all.s, dzl: make([]float32, len(all.dzl)), dzr: make([]float32, len(all.dzr)),
		da: make([]float32, len(all.da)), def: make([]float32, len(all.def)), dwe: make([]float32, len(all.dwe))}
	k.GradZL(one.dzl, ds)
	k.GradZR(one.dzr, ds)
	k.GradA(one.da, ds)
	k.GradEF(one.def, ds)
	k.GradWE(one.dwe, ds)
	sameBits(t, fmt.Sprintf("per-operand/h=%d/f=%d/avx2=%v", h, f, useAVX2), all, one)
}

// TestGATv2ArgsLayout checks the field offsets gatv2_amd64.s reads.
func TestGATv2ArgsLayout(t *testing.T) {
	var a gatv2Args
	for _, c := range []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"fixed", unsafe.Offsetof(a.fixed), 0}, {"table", unsafe.Offsetof(a.table), 8},
		{"a", unsafe.Offsetof(a.a), 16}, {"ef", unsafe.Offsetof(a.ef), 24}, {"we", unsafe.Offsetof(a.we), 32},
		{"idx", unsafe.Offsetof(a.idx), 40}, {"eids", unsafe.Offsetof(a.eids), 48}, {"n", unsafe.Offsetof(a.n), 56},
		{"row", unsafe.Offsetof(a.row), 64}, {"f", unsafe.Offsetof(a.f), 72}, {"h", unsafe.Offsetof(a.h), 80},
		{"d", unsafe.Offsetof(a.d), 88}, {"slope", unsafe.Offsetof(a.slope), 96},
		{"scratch", unsafe.Offsetof(a.scratch), 104}, {"out", unsafe.Offsetof(a.out), 112},
		{"ds", unsafe.Offsetof(a.ds), 120}, {"acc", unsafe.Offsetof(a.acc), 128}, {"da", unsafe.Offsetof(a.da), 136},
		{"def", unsafe.Offsetof(a.def), 144}, {"dwe", unsafe.Offsetof(a.dwe), 152},
		{"mode", unsafe.Offsetof(a.mode), 160}, {"k", unsafe.Offsetof(a.k), 168},
		{"compact", unsafe.Offsetof(a.compact), 176}, {"tmp", unsafe.Offsetof(a.tmp), 184},
		{"avail", unsafe.Offsetof(a.avail), 192}, {"dist", unsafe.Offsetof(a.dist), 200},
		{"pfe", unsafe.Offsetof(a.pfe), 208}, {"rec", unsafe.Offsetof(a.rec), 216},
		{"rstride", unsafe.Offsetof(a.rstride), 224}, {"mcur", unsafe.Offsetof(a.mcur), 232},
		{"moff", unsafe.Offsetof(a.moff), 240}, {"indptr", unsafe.Offsetof(a.indptr), 248},
		{"nodes", unsafe.Offsetof(a.nodes), 256}, {"idx0", unsafe.Offsetof(a.idx0), 264},
		{"eids0", unsafe.Offsetof(a.eids0), 272}, {"total", unsafe.Offsetof(a.total), 280},
		{"astride", unsafe.Offsetof(a.astride), 288}, {"cind", unsafe.Offsetof(a.cind), 296},
		{"cidx", unsafe.Offsetof(a.cidx), 304}, {"ceids", unsafe.Offsetof(a.ceids), 312},
		{"cfix", unsafe.Offsetof(a.cfix), 320}, {"cacc", unsafe.Offsetof(a.cacc), 328},
		{"left", unsafe.Offsetof(a.left), 336},
	} {
		if c.got != c.want {
			t.Errorf("gatv2Args.%s is at offset %d, the assembly reads %d", c.name, c.got, c.want)
		}
	}
}

// TestGATv2RangedRows checks, for the shapes the kernels keep in registers
// (8 heads of 8 and of 2 features, no edge features), that every entry
// point gives the bits of the Go loops on graphs in random and in
// destination order with nodes of no in- or out-edges: the scores,
// GradAll as a training step calls it (records only on graphs numbered by
// destination) and without dA or dZR, and the per-operand gradients: the
// ranged backward with and without dA, the records and rows of its own.
func TestGATv2RangedRows(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	rng := rand.New(rand.NewPCG(25, 6))
	random := randomGraph(t, rng, 70, 90, 600)
	byDst, _, err := random.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	for gname, g := range map[string]*graph.Graph{"random": random, "dst": byDst} {
		for _, hf := range [][2]int{{8, 8}, {8, 2}} {
			h, f := hf[0], hf[1]
			k, ds := newGATv2[float32](rng, g, h, f, 0, 0.2, true)
			w := h * f
			all := func() [][]float32 {
				s := make([]float32, g.NumEdges()*h)
				dzl, dzr, da := make([]float32, g.NumSrc()*w), make([]float32, g.NumDst()*w), make([]float32, w)
				k.Scores(s)
				k.GradAll(dzl, dzr, da, nil, nil, ds)
				zl, zr, a := make([]float32, g.NumSrc()*w), make([]float32, g.NumDst()*w), make([]float32, w)
				k.GradZL(zl, ds)
				k.GradZR(zr, ds)
				k.GradA(a, ds)
				dzr2, da2 := make([]float32, g.NumDst()*w), make([]float32, w)
				k.GradDst(dzr2, da2, nil, nil, ds)
				// GradAll without dA, and without dZR (a scratch row).
				dzl3, dzr3 := make([]float32, g.NumSrc()*w), make([]float32, g.NumDst()*w)
				k.GradAll(dzl3, dzr3, nil, nil, nil, ds)
				dzl4, da4 := make([]float32, g.NumSrc()*w), make([]float32, w)
				k.GradAll(dzl4, nil, da4, nil, nil, ds)
				return [][]float32{s, dzl, dzr, da, zl, zr, a, dzr2, da2, dzl3, dzr3, dzl4, da4}
			}
			got, want := all(), [][]float32(nil)
			gatv2MaskAlways = true // records on every graph
			got = append(got, all()...)
			gatv2MaskAlways = false
			useAVX2 = false
			want = append(all(), all()...)
			useAVX2 = true
			for i := range got {
				for j := range got[i] {
					if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
						t.Fatalf("%s/h=%d/f=%d: output %d element %d is %v, the Go loops give %v", gname, h, f, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
}
