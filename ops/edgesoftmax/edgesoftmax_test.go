package edgesoftmax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

var (
	norms  = []Norm{ByDst, BySrc}
	widths = []int{1, 2, 3, 4, 8, stackWidth + 4}
)

func TestForward(t *testing.T) {
	t.Parallel()
	t.Run("float64", testForward[float64])
	t.Run("float32", testForward[float32])
}

// testForward checks Forward against the reference on every fixture, and
// that every group's column sums to 1.
func testForward[T num.Float](t *testing.T) {
	// Tolerances: float64 differs from math.Exp by a few ulp; float32 rounds
	// the exponential and the quotient.
	tol := 1e-14
	if isFloat32[T]() {
		tol = 3e-7
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range fixtures(t) {
		for _, norm := range norms {
			for _, w := range widths {
				name := fmt.Sprintf("%s/%v/width=%d", f.Name, norm, w)
				score := scores[T](rng, f.G.NumEdges()*w, 3)
				got := nans[T](len(score))
				Forward(got, f.G, norm, score, w)
				want := reference(f.G, norm, score, w)
				if i, ok := within(got, want, tol); !ok {
					t.Errorf("%s: element %d is %v, want %v", name, i, got[i], want[i])
				}
				if k, h, s, ok := sumsToOne(f.G, norm, got, w, 4*tol); !ok {
					t.Errorf("%s: group %d column %d sums to %v", name, k, h, s)
				}
			}
		}
	}
}

// TestClique checks DGL's identity: on the complete graph with edge u*n+v
// from u to v, the edge softmax by destination is the column softmax of the
// n×n score matrix, and by source its row softmax.
func TestClique(t *testing.T) {
	t.Parallel()
	const n, w = 6, 2
	var src, dst []int32
	for u := range n {
		for v := range n {
			src, dst = append(src, int32(u)), append(dst, int32(v))
		}
	}
	g := mustGraph(t, n, n, src, dst)
	rng := rand.New(rand.NewPCG(3, 4))
	score := scores[float64](rng, n*n*w, 2)
	at := func(u, v, h int) float64 { return score[(u*n+v)*w+h] }
	for _, norm := range norms {
		got := make([]float64, len(score))
		Forward(got, g, norm, score, w)
		for u := range n {
			for v := range n {
				for h := range w {
					var sum float64
					for k := range n {
						if norm == ByDst {
							sum += math.Exp(at(k, v, h))
						} else {
							sum += math.Exp(at(u, k, h))
						}
					}
					want := math.Exp(at(u, v, h)) / sum
					if g := got[(u*n+v)*w+h]; math.Abs(g-want) > 1e-15 {
						t.Errorf("%v: edge %d->%d column %d is %v, want %v", norm, u, v, h, g, want)
					}
				}
			}
		}
	}
}

// TestLargeScores checks that scores far from 0 neither overflow nor lose
// the softmax: shifting a group by a constant changes nothing.
func TestLargeScores(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, 3, 2, []int32{0, 1, 2, 0, 1}, []int32{0, 0, 0, 1, 1})
	for _, shift := range []float64{1000, -1000, 1e30} {
		base := []float64{0, 1, 2, 5, 3}
		score := make([]float64, len(base))
		for i, v := range base {
			score[i] = v + shift
		}
		got := make([]float64, len(score))
		Forward(got, g, ByDst, score, 1)
		want := reference(g, ByDst, base, 1)
		if shift == 1e30 {
			// Only the maximum survives the rounding of the shift.
			want = []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 0.5, 0.5}
		}
		if i, ok := within(got, want, 1e-12); !ok {
			t.Errorf("shift %v: element %d is %v, want %v", shift, i, got[i], want[i])
		}
		f32 := make([]float32, len(score))
		out32 := make([]float32, len(score))
		for i, v := range score {
			f32[i] = float32(v)
		}
		Forward(out32, g, ByDst, f32, 1)
		if i, ok := within(out32, reference(g, ByDst, f32, 1), 1e-6); !ok {
			t.Errorf("float32 shift %v: element %d is %v", shift, i, out32[i])
		}
	}
}

// TestSpecialScores checks -Inf (an edge masked out), a column of -Inf
// only, +Inf and NaN.
func TestSpecialScores(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, 3, 2, []int32{0, 1, 2, 0, 1}, []int32{0, 0, 0, 1, 1})
	inf := math.Inf(1)
	for _, c := range []struct {
		name  string
		score []float64
		want  []float64 // for the edges into destination 0; NaN into 1
	}{
		{"nan", []float64{-inf, 0, 0, 1, math.NaN()}, []float64{0, 0.5, 0.5}},
		{"nan-first", []float64{-inf, 0, 0, math.NaN(), 1}, []float64{0, 0.5, 0.5}},
		{"inf", []float64{-inf, 0, 0, inf, 1}, []float64{0, 0.5, 0.5}},
		{"all-minus-inf", []float64{-inf, 0, 0, -inf, -inf}, []float64{0, 0.5, 0.5}},
	} {
		got := make([]float64, 5)
		Forward(got, g, ByDst, c.score, 1)
		if i, ok := within(got[:3], c.want, 0); !ok {
			t.Errorf("%s: edge %d is %v, want %v", c.name, i, got[i], c.want[i])
		}
		if !math.IsNaN(got[3]) || !math.IsNaN(got[4]) {
			t.Errorf("%s: got %v into destination 1, want NaN", c.name, got[3:])
		}
	}
}

// TestZeroInDegree checks that a destination without in-edges changes
// nothing and that every edge is written.
func TestZeroInDegree(t *testing.T) {
	t.Parallel()
	// Destinations 0 and 3 have no in-edges; source 2 has no out-edges.
	g := mustGraph(t, 4, 4, []int32{0, 1, 3, 0}, []int32{1, 1, 2, 2})
	for _, norm := range norms {
		got := nans[float32](8)
		score := []float32{1, 2, 3, 4, 5, 6, 7, 8}
		Forward(got, g, norm, score, 2)
		if i, ok := within(got, reference(g, norm, score, 2), 1e-6); !ok {
			t.Errorf("%v: element %d is %v", norm, i, got[i])
		}
	}
}

// TestBackwardFiniteDifferences checks Backward against central differences
// of f(s) = <R, Forward(s)> for a random projection R: the gradient of f is
// Backward with dy = R.
func TestBackwardFiniteDifferences(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, f := range fixtures(t) {
		for _, norm := range norms {
			for _, w := range []int{1, 3} {
				ne := f.G.NumEdges()
				score := scores[float64](rng, ne*w, 2)
				proj := scores[float64](rng, ne*w, 1)
				y := make([]float64, ne*w)
				fn := func(s []float64) float64 {
					Forward(y, f.G, norm, s, w)
					var v float64
					for i, p := range proj {
						v += p * y[i]
					}
					return v
				}
				want := fd.Gradient(nil, fn, score, &fd.Settings{Formula: fd.Central})
				Forward(y, f.G, norm, score, w)
				got := make([]float64, ne*w)
				Backward(got, f.G, norm, y, proj, w)
				if i, ok := within(got, want, 1e-7); !ok {
					t.Errorf("%s/%v/width=%d: element %d is %v, want %v", f.Name, norm, w, i, got[i], want[i])
				}
			}
		}
	}
}

func TestBackward(t *testing.T) {
	t.Parallel()
	t.Run("float64", testBackward[float64])
	t.Run("float32", testBackward[float32])
}

// testBackward checks Backward against the composed formula on every
// fixture.
func testBackward[T num.Float](t *testing.T) {
	tol := 1e-14
	if isFloat32[T]() {
		tol = 2e-6
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range fixtures(t) {
		for _, norm := range norms {
			for _, w := range widths {
				name := fmt.Sprintf("%s/%v/width=%d", f.Name, norm, w)
				y := make([]T, f.G.NumEdges()*w)
				Forward(y, f.G, norm, scores[T](rng, len(y), 3), w)
				dy := scores[T](rng, len(y), 1)
				got := nans[T](len(y))
				Backward(got, f.G, norm, y, dy, w)
				if i, ok := within(got, composed(f.G, norm, y, dy, w), tol); !ok {
					t.Errorf("%s: element %d is %v", name, i, got[i])
				}
			}
		}
	}
}

// TestAliasing checks that out may be score and dScore may be dy or y.
func TestAliasing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	g := randomGraph(t, rng, 20, 15, 200)
	const w = 3
	score := scores[float64](rng, g.NumEdges()*w, 2)
	y := make([]float64, len(score))
	Forward(y, g, ByDst, score, w)
	inPlace := append([]float64{}, score...)
	Forward(inPlace, g, ByDst, inPlace, w)
	if i, ok := within(inPlace, y, 0); !ok {
		t.Errorf("in-place forward: element %d differs", i)
	}
	dy := scores[float64](rng, len(y), 1)
	ds := make([]float64, len(y))
	Backward(ds, g, ByDst, y, dy, w)
	for name, alias := range map[string]int{"dy": 0, "y": 1} {
		yy, dd := append([]float64{}, y...), append([]float64{}, dy...)
		out := []([]float64){dd, yy}[alias]
		Backward(out, g, ByDst, yy, dd, w)
		if i, ok := within(out, ds, 0); !ok {
			t.Errorf("backward into %s: element %d differs", name, i)
		}
	}
}

// TestDeterministic checks that one and two goroutines give the same bits,
// on a graph large enough to be split.
func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	g := randomGraph(t, rng, 3000, 3000, 120000)
	const w = 4
	score := scores[float32](rng, g.NumEdges()*w, 4)
	dy := scores[float32](rng, g.NumEdges()*w, 1)
	for _, norm := range norms {
		run := func(procs int) (y, ds []float32) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			y, ds = make([]float32, len(score)), make([]float32, len(score))
			Forward(y, g, norm, score, w)
			Backward(ds, g, norm, y, dy, w)
			return y, ds
		}
		y1, d1 := run(1)
		y2, d2 := run(2)
		for i := range y1 {
			if math.Float32bits(y1[i]) != math.Float32bits(y2[i]) || math.Float32bits(d1[i]) != math.Float32bits(d2[i]) {
				t.Errorf("%v: element %d differs between 1 and 2 goroutines", norm, i)
				break
			}
		}
	}
}

func TestPanics(t *testing.T) {
	t.Parallel()
	g := mustGraph(t, 3, 2, []int32{0, 1, 2}, []int32{0, 1, 1})
	x6, x5 := make([]float64, 6), make([]float64, 5)
	for _, c := range []struct {
		name string
		call func()
		msg  string
	}{
		{"out", func() { Forward(x5, g, ByDst, x6, 2) }, "out has length 5, want 6"},
		{"score", func() { Forward(x6, g, BySrc, x5, 2) }, "score has length 5, want 6"},
		{"width", func() { Forward(x6, g, ByDst, x6, -1) }, "negative width -1"},
		{"norm", func() { Forward(x6, g, Norm(7), x6, 2) }, "unknown Norm(7)"},
		{"dScore", func() { Backward(x5, g, ByDst, x6, x6, 2) }, "dScore has length 5"},
		{"y", func() { Backward(x6, g, ByDst, x5, x6, 2) }, "y has length 5"},
		{"dy", func() { Backward(x6, g, ByDst, x6, x5, 2) }, "dy has length 5"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.msg) {
					t.Errorf("%s: panic %v, want one containing %q", c.name, r, c.msg)
				}
			}()
			c.call()
		}()
	}
}

func TestNormString(t *testing.T) {
	t.Parallel()
	for n, want := range map[Norm]string{ByDst: "dst", BySrc: "src", 5: "Norm(5)"} {
		if got := n.String(); got != want {
			t.Errorf("Norm(%d).String() = %q, want %q", uint8(n), got, want)
		}
	}
}

// sumsToOne reports a group and column whose softmax does not sum to 1.
func sumsToOne[T num.Float](g *graph.Graph, norm Norm, y []T, w int, tol float64) (int32, int, float64, bool) {
	for k, es := range members(g, norm) {
		for h := range w {
			var s float64
			for _, e := range es {
				s += float64(y[e*w+h])
			}
			if math.Abs(s-1) > tol*float64(len(es)) {
				return k, h, s, false
			}
		}
	}
	return 0, 0, 0, true
}

// scores returns n values uniform in [-scale, scale).
func scores[T num.Float](rng *rand.Rand, n int, scale float64) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(scale * (2*rng.Float64() - 1))
	}
	return x
}

// nans returns n NaNs, so tests see any element left unwritten.
func nans[T num.Float](n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(math.NaN())
	}
	return x
}

// within reports the first element where got and want differ by more than
// tol relative to max(1, |want|).
func within[T num.Float](got []T, want []float64, tol float64) (int, bool) {
	if len(got) != len(want) {
		return 0, false
	}
	for i, w := range want {
		g := float64(got[i])
		if !(math.Abs(g-w) <= tol*max(1, math.Abs(w))) {
			return i, false
		}
	}
	return 0, true
}

func isFloat32[T num.Float]() bool {
	var x T = 1 << 30
	return T(float64(x)+1) == x
}
