package edgesoftmax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// attnSlope is GAT's LeakyReLU slope.
const attnSlope = 0.2

// naiveScores is the per-edge loop Attention fuses: LeakyReLU(el[u]+er[v])
// for every edge, in float64.
func naiveScores[T num.Float](g *graph.Graph, el, er []T, slope float64, w int) []float64 {
	src, dst := g.COO()
	out := make([]float64, len(src)*w)
	for e := range src {
		for h := range w {
			x := float64(el[int(src[e])*w+h] + er[int(dst[e])*w+h])
			if x < 0 {
				x *= slope
			}
			out[e*w+h] = x
		}
	}
	return out
}

// nodeScores returns random el and er rows for g.
func nodeScores[T num.Float](rng *rand.Rand, g *graph.Graph, w int) (el, er []T) {
	return scores[T](rng, g.NumSrc()*w, 3), scores[T](rng, g.NumDst()*w, 3)
}

func TestAttention(t *testing.T) {
	t.Parallel()
	t.Run("float64", testAttention[float64])
	t.Run("float32", testAttention[float32])
}

// testAttention checks Attention against the textbook softmax of the naive
// scores, and AttentionBackward against the composed edge-softmax gradient
// times the LeakyReLU's slope, on every fixture.
func testAttention[T num.Float](t *testing.T) {
	tol, btol := 1e-14, 1e-14
	if isFloat32[T]() {
		tol, btol = 3e-7, 2e-6
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, f := range fixtures(t) {
		for _, w := range widths {
			name := fmt.Sprintf("%s/width=%d", f.Name, w)
			el, er := nodeScores[T](rng, f.G, w)
			pre := naiveScores(f.G, el, er, attnSlope, w)
			score := make([]float64, len(pre))
			copy(score, pre)
			got := nans[T](len(pre))
			Attention(got, f.G, el, er, attnSlope, w)
			if i, ok := within(got, reference(f.G, ByDst, score, w), tol); !ok {
				t.Errorf("%s: forward element %d is %v", name, i, got[i])
			}
			dy := scores[T](rng, len(got), 1)
			ds := nans[T](len(got))
			AttentionBackward(ds, f.G, el, er, attnSlope, got, dy, w)
			want := composed(f.G, ByDst, got, dy, w)
			for i, x := range pre {
				if x <= 0 {
					want[i] *= attnSlope
				}
			}
			if i, ok := within(ds, want, btol); !ok {
				t.Errorf("%s: backward element %d is %v, want %v", name, i, ds[i], want[i])
			}
		}
	}
}

// TestAttentionFiniteDifferences checks the gradients with respect to el
// and er, summed from AttentionBackward over out- and in-edges, against
// central differences of the forward in float64.
func TestAttentionFiniteDifferences(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	for _, f := range fixtures(t) {
		for _, w := range []int{1, 3} {
			ne, ns := f.G.NumEdges(), f.G.NumSrc()
			el, er := nodeScores[float64](rng, f.G, w)
			proj := scores[float64](rng, ne*w, 1)
			y := make([]float64, ne*w)
			loss := func(x []float64) float64 {
				Attention(y, f.G, x[:ns*w], x[ns*w:], attnSlope, w)
				var v float64
				for i, p := range proj {
					v += p * y[i]
				}
				return v
			}
			x := slices.Concat(el, er)
			want := fd.Gradient(nil, loss, x, &fd.Settings{Formula: fd.Central})
			Attention(y, f.G, el, er, attnSlope, w)
			ds := make([]float64, ne*w)
			AttentionBackward(ds, f.G, el, er, attnSlope, y, proj, w)
			got := make([]float64, len(x))
			src, dst := f.G.COO()
			for e := range src {
				for h := range w {
					got[int(src[e])*w+h] += ds[e*w+h]
					got[ns*w+int(dst[e])*w+h] += ds[e*w+h]
				}
			}
			if i, ok := within(got, want, 1e-6); !ok {
				t.Errorf("%s/width=%d: element %d is %v, want %v", f.Name, w, i, got[i], want[i])
			}
		}
	}
}

// TestAttentionDeterministic checks bit-identical results for 1, 2 and 3
// goroutines on a graph large enough to be split.
func TestAttentionDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	g := randomGraph(t, rng, 3000, 2000, 200000)
	for _, w := range []int{8, 2} {
		testAttentionDeterministic(t, rng, g, w)
	}
}

func testAttentionDeterministic(t *testing.T, rng *rand.Rand, g *graph.Graph, w int) {
	el, er := nodeScores[float32](rng, g, w)
	dy := scores[float32](rng, g.NumEdges()*w, 1)
	var first, firstGrad []float32
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		y := make([]float32, g.NumEdges()*w)
		Attention(y, g, el, er, attnSlope, w)
		ds := make([]float32, len(y))
		AttentionBackward(ds, g, el, er, attnSlope, y, dy, w)
		runtime.GOMAXPROCS(old)
		if first == nil {
			first, firstGrad = y, ds
			continue
		}
		if !slices.Equal(y, first) || !slices.Equal(ds, firstGrad) {
			t.Errorf("width %d, GOMAXPROCS=%d: results differ from GOMAXPROCS=1", w, procs)
		}
	}
}

// TestAttentionPanics checks the length checks.
func TestAttentionPanics(t *testing.T) {
	g := mustGraph(t, 3, 2, []int32{0, 1, 2}, []int32{0, 1, 1})
	ok := make([]float64, 6)
	for name, fn := range map[string]func(){
		"out":    func() { Attention(make([]float64, 5), g, ok, make([]float64, 4), attnSlope, 2) },
		"el":     func() { Attention(ok, g, make([]float64, 4), make([]float64, 4), attnSlope, 2) },
		"er":     func() { Attention(ok, g, ok, ok, attnSlope, 2) },
		"dScore": func() { AttentionBackward(ok[:5], g, ok, make([]float64, 4), attnSlope, ok, ok, 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}

// TestAttentionAccel checks the AVX2 kernels (one, two, four and eight float32 heads) against
// the pure-Go path on the same inputs, including large and infinite
// scores, groups of many sizes and the slope of a plain ReLU.
func TestAttentionAccel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels in this build or on this processor")
	}
	rng := rand.New(rand.NewPCG(17, 18))
	graphs := map[string]*graph.Graph{"random": randomGraph(t, rng, 300, 200, 9000)}
	for _, f := range fixtures(t) {
		graphs[f.Name] = f.G
	}
	for name, g := range graphs {
		for _, c := range []struct{ w, scale int }{{8, 1}, {8, 60}, {1, 1}, {1, 60}, {2, 1}, {2, 60}, {4, 1}, {4, 60}} {
			w, scale := c.w, float64(c.scale)
			for _, slope := range []float64{attnSlope, 0} {
				el, er := scores[float32](rng, g.NumSrc()*w, scale), scores[float32](rng, g.NumDst()*w, scale)
				if len(el) > 0 {
					el[0] = float32(math.Inf(-1))
				}
				dy := scores[float32](rng, g.NumEdges()*w, 1)
				run := func(accel bool) (y, ds []float32) {
					old := useAVX2
					useAVX2 = accel
					defer func() { useAVX2 = old }()
					y, ds = nans[float32](g.NumEdges()*w), nans[float32](g.NumEdges()*w)
					Attention(y, g, el, er, slope, w)
					AttentionBackward(ds, g, el, er, slope, y, dy, w)
					return y, ds
				}
				y, ds := run(true)
				wantY, wantDs := run(false)
				for i := range y {
					if !close32(y[i], wantY[i], 3e-7) || !close32(ds[i], wantDs[i], 2e-6) {
						t.Fatalf("%s/width=%d/scale=%v/slope=%v: element %d: AVX2 gives %v, %v; Go %v, %v", name, w, scale, slope, i, y[i], ds[i], wantY[i], wantDs[i])
					}
				}
			}
		}
	}
}

// close32 reports whether a and b differ by at most tol relative to
// max(1, |b|), or are both NaN.
func close32(a, b float32, tol float64) bool {
	if math.IsNaN(float64(a)) || math.IsNaN(float64(b)) {
		return math.IsNaN(float64(a)) && math.IsNaN(float64(b))
	}
	return math.Abs(float64(a)-float64(b)) <= tol*max(1, math.Abs(float64(b)))
}

// TestAttentionMatchesForward checks that with two, four or eight float32 heads the
// fused attention gives the bits of Forward on the LeakyReLU scores: the
// same exponential, sums and reciprocals, on the AVX2 path as in Go.
func TestAttentionMatchesForward(t *testing.T) {
	for _, w := range []int{8, 4, 2} {
		t.Run(fmt.Sprintf("heads=%d", w), func(t *testing.T) { testAttentionMatchesForward(t, w) })
	}
}

func testAttentionMatchesForward(t *testing.T, w int) {
	rng := rand.New(rand.NewPCG(19, 20))
	g := randomGraph(t, rng, 400, 300, 20000)
	el, er := nodeScores[float32](rng, g, w)
	src, dst := g.COO()
	score := make([]float32, g.NumEdges()*w)
	for e := range src {
		for h := range w {
			x := el[int(src[e])*w+h] + er[int(dst[e])*w+h]
			score[e*w+h] = max(x, x*attnSlope)
		}
	}
	for _, accel := range []bool{true, false} {
		old := useAVX2
		useAVX2 = accel && old
		got, want := make([]float32, len(score)), make([]float32, len(score))
		Attention(got, g, el, er, attnSlope, w)
		Forward(want, g, ByDst, score, w)
		useAVX2 = old
		if accel && !old {
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("vector path %v: element %d is %v, Forward gives %v", accel, i, got[i], want[i])
			}
		}
	}
}
