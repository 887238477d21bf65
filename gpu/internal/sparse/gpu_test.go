//go:build gnncuda

package sparse

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/gpu/internal/cudatest"
	"github.com/gnngo/gnn/gpu/internal/cusparse"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// openGPU returns the first GPU or skips the test: these checks are
// about sizes and libraries the emulator does not have.
func openGPU(t testing.TB) *cuda.Context {
	t.Helper()
	c, err := cuda.Open(0)
	if err != nil {
		t.Skipf("needs a GPU: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// bigGraph is the reference case of issue 15: 100K nodes, 10M uniform
// random edges.
func bigGraph(t testing.TB) *graph.Graph {
	t.Helper()
	g, err := generate.Uniform(100_000, 10_000_000, 15)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestTenMillionEdges checks the device kernels against the CPU kernels on
// the 10M-edge graph: copy_u + sum (dim 64) and its gradient on the
// reverse, u_mul_e + sum with four heads and its gradients, u_dot_v, edge
// softmax and GAT attention with their gradients. GPU only; not with
// -short.
func TestTenMillionEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("10M edges: not with -short")
	}
	c := openGPU(t)
	testLarge(t, c, bigGraph(t))
}

// TestLargeOnEmulator runs the checks of TestTenMillionEdges on the
// emulator with 50K edges, so that they are known to work before a GPU
// runs them.
func TestLargeOnEmulator(t *testing.T) {
	c := cudatest.Emulator(t)
	h, err := generate.Uniform(2000, 50_000, 15)
	if err != nil {
		t.Fatal(err)
	}
	testLarge(t, c, h)
}

func testLarge(t *testing.T, c *cuda.Context, h *graph.Graph) {
	g := upload(t, c, h)
	r := rand.New(rand.NewPCG(15, 15))
	n, ne := h.NumDst(), h.NumEdges()

	const f = 64
	x := kerneltest.Uniform[float32](r, n*f, -1, 1)
	want := make([]float32, n*f)
	spmm.Forward(want, h, spmm.CopyU, spmm.Sum, x, nil, bcast.Same([]int{f}), nil)
	out := filled[float32](t, c, n*f)
	dx := toDevice(t, c, x)
	must(t, CopyUSum[float32](g, out, dx, f))
	compare(t, "copy_u sum", toHost[float32](t, c, out), want)
	must(t, CopyUSum[float32](g.Reverse(), out, dx, f))
	spmm.Forward(want, h.Reverse(), spmm.CopyU, spmm.Sum, x, nil, bcast.Same([]int{f}), nil)
	compare(t, "copy_u sum on the reverse", toHost[float32](t, c, out), want)

	const heads, hf = 4, 16
	w := kerneltest.Uniform[float32](r, ne*heads, -1, 1)
	pm := mustPlan(t, []int{heads, hf}, []int{heads, 1}, false)
	spmm.Forward(want, h, spmm.Mul, spmm.Sum, x, w, pm, nil)
	dw := toDevice(t, c, w)
	must(t, UMulESum[float32](g, out, dx, dw, heads, hf))
	compare(t, "u_mul_e sum", toHost[float32](t, c, out), want)
	dOut := kerneltest.Uniform[float32](r, n*f, -1, 1)
	wu, ww := spmmGradRef(h, spmm.Mul, spmm.Sum, x, w, pm, nil, dOut)
	gu, gw := filled[float32](t, c, len(wu)), filled[float32](t, c, len(ww))
	must(t, UMulESumBackward[float32](g, gu, gw, dx, dw, heads, hf, toDevice(t, c, dOut)))
	compare(t, "u_mul_e du", toHost[float32](t, c, gu), wu)
	compare(t, "u_mul_e dw", toHost[float32](t, c, gw), ww)
	// Deterministic: a second run gives the same bits.
	first := toHost[float32](t, c, gu)
	must(t, UMulESumBackward[float32](g, gu, gw, dx, dw, heads, hf, toDevice(t, c, dOut)))
	for i, v := range toHost[float32](t, c, gu) {
		if math.Float32bits(v) != math.Float32bits(first[i]) {
			t.Fatalf("u_mul_e du[%d] = %v on one run, %v on the next", i, first[i], v)
		}
	}

	pd := mustPlan(t, []int{heads, hf}, []int{heads, hf}, true)
	scores := make([]float32, ne*heads)
	sddmm.Forward(scores, h, sddmm.Dot, x, sddmm.U, x, sddmm.V, pd)
	ds := filled[float32](t, c, ne*heads)
	must(t, SDDMM[float32](g, ds, sddmm.Dot, dx, sddmm.U, dx, sddmm.V, pd))
	compare(t, "u_dot_v", toHost[float32](t, c, ds), scores)

	y := make([]float32, ne*heads)
	edgesoftmax.Forward(y, h, edgesoftmax.ByDst, scores, heads)
	must(t, EdgeSoftmax[float32](g, ds, edgesoftmax.ByDst, ds, heads))
	compare(t, "edge softmax", toHost[float32](t, c, ds), y)

	el, er := kerneltest.Uniform[float32](r, n*heads, -3, 3), kerneltest.Uniform[float32](r, n*heads, -3, 3)
	edgesoftmax.Attention(y, h, el, er, 0.2, heads)
	del, der := toDevice(t, c, el), toDevice(t, c, er)
	must(t, Attention[float32](g, ds, del, der, 0.2, heads))
	compare(t, "attention", toHost[float32](t, c, ds), y)
	dy := kerneltest.Uniform[float32](r, ne*heads, -1, 1)
	gs := make([]float32, ne*heads)
	edgesoftmax.AttentionBackward(gs, h, el, er, 0.2, y, dy, heads)
	dg := filled[float32](t, c, ne*heads)
	must(t, AttentionBackward[float32](g, dg, del, der, 0.2, ds, toDevice(t, c, dy), heads))
	compare(t, "attention backward", toHost[float32](t, c, dg), gs)
}

// TestCuSPARSEMatchesSpMM checks cuSPARSE's SpMM on the in-edge view with
// values 1 against copy_u + sum. GPU only.
func TestCuSPARSEMatchesSpMM(t *testing.T) {
	c := openGPU(t)
	sp, err := cusparse.New(c)
	if err != nil {
		t.Skipf("no cuSPARSE: %v", err)
	}
	defer sp.Close()
	h, err := generate.Uniform(3000, 60_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	h = sortedCSR(t, h)
	g := upload(t, c, h)
	r := rand.New(rand.NewPCG(2, 2))
	for _, f := range []int{1, 16, 64} {
		x := kerneltest.Uniform[float32](r, h.NumSrc()*f, -1, 1)
		want := make([]float32, h.NumDst()*f)
		spmm.Forward(want, h, spmm.CopyU, spmm.Sum, x, nil, bcast.Same([]int{f}), nil)
		ones := make([]float32, h.NumEdges())
		for i := range ones {
			ones[i] = 1
		}
		out := filled[float32](t, c, len(want))
		ptr, idx, _ := g.InEdges()
		for _, alg := range []cusparse.Alg{cusparse.AlgDefault, cusparse.CSRAlg2} {
			must(t, sp.SpMM(true, h.NumDst(), h.NumSrc(), h.NumEdges(), ptr, idx, toDevice(t, c, ones).Ptr, toDevice(t, c, x).Ptr, out.Ptr, f, alg))
			compare(t, "cuSPARSE", toHost[float32](t, c, out), want)
		}
	}
}

// sortedCSR returns h with its edges renumbered in (destination, source)
// order, so that the in-edge view's rows hold increasing column (source)
// indices, as cuSPARSE's CSR format assumes. copy_u + sum does not depend
// on the numbering.
func sortedCSR(t testing.TB, h *graph.Graph) *graph.Graph {
	t.Helper()
	src, dst := h.COO()
	order := make([]int, len(src))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		i, j := order[a], order[b]
		return dst[i] < dst[j] || dst[i] == dst[j] && src[i] < src[j]
	})
	s, d := make([]int32, len(src)), make([]int32, len(src))
	for k, i := range order {
		s[k], d[k] = src[i], dst[i]
	}
	g, err := graph.FromCOO(h.NumSrc(), h.NumDst(), s, d)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
